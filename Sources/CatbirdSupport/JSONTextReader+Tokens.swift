extension JSONTextReader {
    /// Reads the string whose opening quote is at ``index`` (RFC 8259 §7): no control
    /// character unescaped, only JSON's escapes, UTF-8 only.
    /// - Parameter keepingText: whether to return the text (a key's is needed, a value's not).
    /// - Returns: the text with its escapes decoded (`""` unless `keepingText`), and its first
    ///   lone surrogate escape as written (`\ud800`), if any.
    /// - Throws: ``JSONSyntaxError`` at the first byte that is not allowed, or at the opening
    ///   quote when the text ends first.
    mutating func readString(keepingText: Bool) throws(JSONSyntaxError) -> (text: String, lone: String?) {
        let opening = index
        index += 1
        var decoded: [UInt8] = []
        var lone: String?
        while index < bytes.count {
            // Most of a string (a mock's base64 body) is plain: skipped in one tight loop.
            let plainEnd = plainRunEnd(from: index)
            if keepingText { decoded += bytes[index..<plainEnd] }
            index = plainEnd
            guard index < bytes.count else { break }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (keepingText ? String(decoding: decoded, as: UTF8.self) : "", lone)
            case UInt8(ascii: "\\"):
                try readEscape(into: &decoded, lone: &lone)
            case 0..<0x20:
                throw JSONSyntaxError(
                    at: index, "the control character \(Self.scalarName(byte)) inside a string: write it as \(Self.escape(byte))")
            case 0x80...:
                guard let length = utf8Length(at: index) else {
                    throw JSONSyntaxError(
                        at: index, "the byte 0x\(String(byte, radix: 16, uppercase: true)) does not begin a UTF-8 character here: "
                            + "JSON text is UTF-8 (RFC 8259 §8.1)")
                }
                if keepingText { decoded += bytes[index..<(index + length)] }
                index += length
            default:
                if keepingText { decoded.append(byte) }
                index += 1
            }
        }
        throw JSONSyntaxError(at: opening, "a string that is never closed: \(subjectName) ends inside it")
    }

    /// The index after the run of plain string bytes from `start`: printable ASCII other than
    /// `"` and `\`. Plain comparisons over the buffer, no pattern matching: fast in a debug
    /// build too (the tests' server).
    private func plainRunEnd(from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var end = start
            while end < buffer.count {
                let byte = buffer[end]
                if byte < 0x20 || byte > 0x7E || byte == 0x22 || byte == 0x5C { break }
                end += 1
            }
            return end
        }
    }

    /// Reads the escape at ``index`` (its backslash) into `decoded`, noting the first lone
    /// surrogate in `lone`: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\uXXXX`
    /// (a `\ud800`…`\udbff` followed by a `\udc00`…`\udfff` is one character).
    private mutating func readEscape(into decoded: inout [UInt8], lone: inout String?) throws(JSONSyntaxError) {
        guard index + 1 < bytes.count else { throw JSONSyntaxError(at: index, "\(subjectName) ends inside a string, after a backslash") }
        let escaped = bytes[index + 1]
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            guard var unit = hex(at: index + 2) else {
                throw JSONSyntaxError(at: index, "\\u must be followed by four hexadecimal digits (\\u00e9)")
            }
            let written = "\\u" + String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self)
            index += 6
            // A high surrogate followed by `\uDC00`…`\uDFFF` is one scalar; any other surrogate is lone.
            if (0xD800...0xDBFF).contains(unit), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u"), let low = hex(at: index + 2), (0xDC00...0xDFFF).contains(low)
            {
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                index += 6
            } else if (0xD800...0xDFFF).contains(unit), lone == nil {
                lone = written
            }
            decoded += Array(String(Unicode.Scalar(unit) ?? "\u{FFFD}").utf8)
            return
        default:
            let written = (0x21..<0x7F).contains(escaped) ? "\\\(Character(Unicode.Scalar(escaped)))" : "\\ and \(found(at: index + 1))"
            throw JSONSyntaxError(
                at: index, "the escape \(written) is not JSON: a string may hold \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        index += 2
    }

    /// Reads the number at ``index`` (RFC 8259 §6: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`)
    /// and notes it when a 64-bit float cannot hold it.
    /// - Throws: ``JSONSyntaxError`` at the number for a leading zero or a hexadecimal number,
    ///   at the byte where a digit was expected otherwise.
    mutating func readNumber() throws(JSONSyntaxError) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(at: index) else {
            throw JSONSyntaxError(at: start, wordProblem(at: index).map { "-\($0)" } ?? "'-' must be followed by a digit, found \(found(at: index))")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(at: index) {
                throw JSONSyntaxError(at: start, "the number \(numberText(from: start)) has a leading zero: JSON numbers have none")
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "x") {
                throw JSONSyntaxError(at: start, "\(numberText(from: start)) is a hexadecimal number: JSON numbers are decimal")
            }
        }
        skipDigits()
        var fractionStart: Int?
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            fractionStart = index
            index += 1
            guard isDigit(at: index) else {
                throw JSONSyntaxError(at: index, "a '.' in a number must be followed by a digit (1.0, not 1.), found \(found(at: index))")
            }
            skipDigits()
        }
        var exponentStart: Int?
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            exponentStart = index
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(at: index) else {
                throw JSONSyntaxError(at: index, "an exponent must have digits (1e5, 1e-5), found \(found(at: index))")
            }
            skipDigits()
        }
        if findings.numberOutOfRange == nil, JSONTextCheck.isOutOfRange(bytes[start..<index]) {
            findings.numberOutOfRange = (path(of: stack[...]), String(decoding: bytes[start..<index], as: UTF8.self))
        }
        if findings.numbersLosingFraction.count < JSONTextCheck.numbersLosingFractionKept,
           fractionStart != nil || exponentStart != nil,
           JSONTextCheck.hasFraction(bytes[start..<index]),
           let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite, value.rounded() == value {
            // Written with a fraction its float lost whole (tester finding tester60a-F1, a mock's
            // `limit`; tester63a-F2: also with an exponent, `45035996273704975e-1`).
            findings.numbersLosingFraction.append(
                (steps(of: stack[...]), path(of: stack[...]), String(decoding: bytes[start..<index], as: UTF8.self)))
        }
    }

    /// Reads `true`, `false` or `null` at ``index``.
    /// - Throws: ``JSONSyntaxError`` for any other word (`True`, `nil`, `NaN`, `undefined`).
    mutating func readLiteral() throws(JSONSyntaxError) {
        for literal in Self.literals where bytes[index...].starts(with: literal) && !isWordByte(at: index + literal.count) {
            index += literal.count
            return
        }
        throw JSONSyntaxError(
            at: index, wordProblem(at: index) ?? "\(Self.expectedValue), found \(found(at: index))")
    }

    private static let literals = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]


    private func isDigit(at position: Int) -> Bool {
        position < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
    }

    private mutating func skipDigits() {
        while isDigit(at: index) { index += 1 }
    }

    /// The number-like text from `start` (digits, signs, `.`, letters), for a reason.
    private func numberText(from start: Int) -> String {
        var end = start + 1
        while end < bytes.count, end - start < 40, isWordByte(at: end) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The four hexadecimal digits at `position` as a number; nil when they are not.
    private func hex(at position: Int) -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        return UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16)
    }

    /// The length of the UTF-8 sequence starting at `position` (a byte >= 0x80), or nil when
    /// it is not one: a continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut.
    func utf8Length(at position: Int) -> Int? {
        let (length, second): (Int, ClosedRange<UInt8>) = switch bytes[position] {
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: (0, 0...0)
        }
        guard length > 0, position + length <= bytes.count, second.contains(bytes[position + 1]) else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[position + offset]) { return nil }
        return length
    }

    /// `U+000A`.
    static func scalarName(_ byte: UInt8) -> String {
        "U+" + String(repeating: "0", count: byte < 0x10 ? 3 : 2) + String(byte, radix: 16, uppercase: true)
    }

    /// How a control character is written in a JSON string: `\n`, or `\u0001`.
    private static func escape(_ byte: UInt8) -> String {
        switch byte {
        case 0x08: "\\b"
        case 0x09: "\\t"
        case 0x0A: "\\n"
        case 0x0C: "\\f"
        case 0x0D: "\\r"
        default: "\\u" + String(repeating: "0", count: byte < 0x10 ? 3 : 2) + String(byte, radix: 16)
        }
    }
}
