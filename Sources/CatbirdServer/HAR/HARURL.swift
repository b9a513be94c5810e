import CatbirdSupport

/// A HAR `request.url` that parses as a URL (RFC 3986) whatever bytes the request-target held.
enum HARURL {
    /// `text` with every byte a URI may not hold percent-encoded as `%XX` (RFC 3986 §2.1): C0
    /// controls, space, DEL, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, every non-ASCII
    /// byte (UTF-8, so `é` is `%C3%A9`), and a `%` not followed by two hex digits. What is
    /// already valid (`%20`, `?`, `&`, `=`, `/`, …) is kept, so a well-formed target is unchanged.
    static func encoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { mustEncode($0) || $0 == UInt8(ascii: "%") }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        for (index, byte) in bytes.enumerated() {
            let escapesNothing = byte == UInt8(ascii: "%")
                && !(index + 2 < bytes.count && ASCIIByte.isHexDigit(bytes[index + 1]) && ASCIIByte.isHexDigit(bytes[index + 2]))
            if mustEncode(byte) || escapesNothing {
                ASCIIByte.appendPercentEncoded(byte, to: &out)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func mustEncode(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x7F || #""<>\^`{|}"#.utf8.contains(byte)
    }
}
