/// Where a control body (or a sidecar file, a body pattern's value) stops being JSON (RFC 8259) and why, found by ``JSONTextCheck``.
struct JSONSyntaxError: Error {
    /// The byte offset of the fault from the start of the text (0 for the first byte).
    let offset: Int
    /// What is wrong there: `a trailing comma before '}': JSON allows none (RFC 8259)`.
    let problem: String

    init(at offset: Int, _ problem: String) {
        self.offset = offset
        self.problem = problem
    }

    /// The reason for the 400 (docs/protocol.md#errors): `invalid JSON at line 3, column 7
    /// (byte offset 25): …`. Lines are counted by LF; the column counts characters (Unicode
    /// scalars) from 1.
    /// - Parameter bytes: the text the error was found in.
    func reason(in bytes: [UInt8]) -> String {
        let end = min(offset, bytes.count)
        var line = 1
        var lineStart = 0
        for position in 0..<end where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        let column = 1 + bytes[lineStart..<end].count { $0 & 0xC0 != 0x80 }
        return "invalid JSON at line \(line), column \(column) (byte offset \(offset)): \(problem)"
    }
}

extension JSONTextReader {
    /// What is at `position`, for a reason: `'}'`, the word `'update'`, `'é'`, `the control
    /// character U+0001`, `the byte 0xFF`, or `the end of the body` (of the file, of the value).
    func found(at position: Int) -> String {
        guard position < bytes.count else { return "the end of \(subjectName)" }
        if let word = word(at: position) { return "'\(word)'" }
        let byte = bytes[position]
        switch byte {
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20: return "a space"
        case 0..<0x20, 0x7F: return "the control character \(Self.scalarName(byte))"
        default:
            if let length = utf8Length(at: position),
                let scalar = String(decoding: bytes[position..<(position + length)], as: UTF8.self).unicodeScalars.first
            {
                return "'\(scalar)' (U+\(String(scalar.value, radix: 16, uppercase: true)))"
            }
            return "the byte 0x\(String(byte, radix: 16, uppercase: true)) (not UTF-8)"
        }
    }

    /// The reason for what JSON5 or JavaScript allow where JSON does not, at `position`: a
    /// single-quoted string, a comment, a leading `+` or `.` in a number; nil otherwise.
    func notJSON(at position: Int) -> String? {
        guard position < bytes.count else { return nil }
        let next = position + 1 < bytes.count ? bytes[position + 1] : 0
        switch bytes[position] {
        case UInt8(ascii: "'"):
            return "a single-quoted string: JSON strings are in double quotes"
        case UInt8(ascii: "/") where next == UInt8(ascii: "/") || next == UInt8(ascii: "*"):
            return "a comment: JSON has no comments (RFC 8259)"
        case UInt8(ascii: "+") where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next):
            return "a number with a leading '+': JSON numbers have none"
        case UInt8(ascii: ".") where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next):
            return "a number starting with '.': write a digit before it (0.5, not .5)"
        default:
            return nil
        }
    }

    /// The reason for a word at `position` where a value was expected: `NaN` and `Infinity`
    /// (any case) are not JSON numbers; any other word is not a literal. Nil when there is no
    /// word there.
    func wordProblem(at position: Int) -> String? {
        guard let word = word(at: position) else { return nil }
        if ["nan", "infinity", "inf"].contains(word.lowercased()) {
            return "\(word) is not a JSON number: JSON has no NaN or Infinity (RFC 8259); send null or a number"
        }
        return "\(word) is not a JSON value: the literals are true, false and null (lowercase), and strings are in double quotes"
    }

    /// The identifier-like word at `position` (a letter, `_` or `$`, then letters, digits,
    /// `_` or `$`; cut at 40 characters with `…`), or nil.
    func word(at position: Int) -> String? {
        guard position < bytes.count, isWordByte(at: position), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
        else { return nil }
        var end = position
        while isWordByte(at: end), end - position < 40 { end += 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self) + (isWordByte(at: end) ? "…" : "")
    }

    /// Whether the byte at `position` is an ASCII letter, digit, `_` or `$` (false past the end).
    func isWordByte(at position: Int) -> Bool {
        guard position < bytes.count else { return false }
        let byte = bytes[position]
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }
}
