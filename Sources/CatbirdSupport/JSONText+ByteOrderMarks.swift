import Foundation

extension JSONText {
    /// `json` with every U+FEFF written raw inside a string (the UTF-8 bytes `EF BB BF`) written
    /// as the escape `\ufeff` instead, which means the same string; everything else, a BOM
    /// outside strings included, is left as it is. For the texts read with Foundation's
    /// `JSONSerialization` (file mock sidecars, recording intents): on Linux it drops a raw
    /// U+FEFF that starts a string, key or value (`"\u{FEFF}x"` reads as `"x"`), while it keeps
    /// an escaped one, so a recorded header value that began with it was replayed without it
    /// (the kind of tester finding tester50a-F1, where percent-decoding dropped it).
    public static func escapingByteOrderMarks(in json: Data) -> Data {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        guard json.firstRange(of: bom) != nil else { return json }
        let bytes = [UInt8](json)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var inString = false, escaped = false, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString, !escaped, byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                out += Array(#"\ufeff"#.utf8)
                index += 3
                continue
            }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            out.append(byte)
            index += 1
        }
        return Data(out)
    }
}
