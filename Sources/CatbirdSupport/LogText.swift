/// Makes text safe to write into a one-line log on a terminal: client bytes (a tenant id, a
/// request-target, a method, a header value) may hold escape sequences that would recolour or
/// rewrite the operator's terminal, or a line break that would forge a log line.
/// Rule: `README.md#configuration` (`--log-level`).
public enum LogText {
    /// `text` with every control character written as an escape: C0 (U+0000…U+001F) and DEL
    /// (U+007F) as `\x1b`-style (two lowercase hex digits), C1 (U+0080…U+009F) as `\u0085`-style.
    /// Everything else, backslashes included, is kept; text without a control character is
    /// returned as it is, after one scan of its UTF-8 bytes.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F: escaped += "\\x" + hex(scalar.value, digits: 2)
            case 0x80...0x9F: escaped += "\\u" + hex(scalar.value, digits: 4)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `text` holds a C0, DEL or C1 character (C1 is `0xC2 0x80…0x9F` in UTF-8).
    private static func needsEscaping(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0 && byte >= 0x80) { return true }
            previous = byte
        }
        return false
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
