/// Makes text safe to write into a one-line log on a terminal: client bytes (a tenant id, a
/// request-target, a method, a header value) may hold escape sequences that would recolour or
/// rewrite the operator's terminal, or a line break that would forge a log line.
/// Rule: `README.md#configuration` (`--log-level`).
public enum LogText {
    /// `text` with every control character written as an escape: C0 (U+0000…U+001F) and DEL
    /// (U+007F) as `\x1b`-style (two lowercase hex digits), C1 (U+0080…U+009F) and the
    /// bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A…U+202E,
    /// U+2066…U+2069, which reorder the text around them on a terminal: T16-F5) and the line
    /// and paragraph separators U+2028 and U+2029 (line breaks to editors and to log tools that
    /// split as JavaScript or Python's `splitlines()` do: tester finding tester39a-F4) as
    /// `\u0085`-style. Everything else, backslashes included, is kept; text without such a
    /// character is returned as it is, after one scan of its UTF-8 bytes.
    public static func escapingControlCharacters(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F: escaped += "\\x" + hex(scalar.value, digits: 2)
            case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                escaped += "\\u" + hex(scalar.value, digits: 4)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `text` holds a character `escapingControlCharacters` escapes, by its UTF-8 bytes:
    /// C0 and DEL (one byte), C1 (`C2 80…9F`), U+061C (`D8 9C`), U+200E/F (`E2 80 8E…8F`),
    /// U+2028…9 (`E2 80 A8…A9`), U+202A…E (`E2 80 AA…AE`), U+2066…9 (`E2 81 A6…A9`).
    private static func needsEscaping(_ text: String) -> Bool {
        var beforePrevious: UInt8 = 0, previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return true }
            switch (beforePrevious, previous, byte) {
            case (_, 0xC2, 0x80...0x9F), (_, 0xD8, 0x9C), (0xE2, 0x80, 0x8E...0x8F),
                 (0xE2, 0x80, 0xA8...0xAE), (0xE2, 0x81, 0xA6...0xA9):
                return true
            default: break
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
