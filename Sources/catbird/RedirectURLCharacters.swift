import CatbirdSupport

/// The bytes a `--redirect-url` may hold as written (RFC 3986 section 2): a forwarded request's
/// URL is the base and the request-target joined, and libcurl refuses one with a space or a `%`
/// not followed by two hex digits, so a base `http://up/a b` or `http://up/%zz` made every
/// forwarded request a 502 `URL using bad/illegal format` (tester finding T15B-F13).
enum RedirectURLCharacters {
    /// Why `url` cannot be sent as written: the first byte that is not an unreserved, reserved
    /// or `%` character (a space, a control character, a byte outside ASCII), or a `%` that does
    /// not start a percent-escape; nil when every byte may be sent.
    static func problem(in url: String) -> String? {
        let bytes = Array(url.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, ASCIIByte.isHexDigit(bytes[index + 1]), ASCIIByte.isHexDigit(bytes[index + 2]) else {
                    let written = String(decoding: bytes[index..<min(index + 3, bytes.count)], as: UTF8.self)
                    return "'\(written)' at byte \(index) is not a percent-escape (% and two hex digits; a % itself is written %25)"
                }
                index += 3
                continue
            }
            guard allowed.contains(byte) else {
                let shown = byte == UInt8(ascii: " ") ? "a space" : byte < 0x20 || byte == 0x7F ? "a control character" : byte >= 0x80 ? "a byte outside ASCII" : "'\(Character(Unicode.Scalar(byte)))'"
                return "\(shown) at byte \(index) cannot be sent in a URL as is: write it percent-encoded"
            }
            index += 1
        }
        return nil
    }

    /// ALPHA, DIGIT, the unreserved `-._~` and the reserved `:/?#[]@!$&'()*+,;=`.
    private static let allowed: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8))
}
