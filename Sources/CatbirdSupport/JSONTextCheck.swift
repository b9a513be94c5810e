/// Reads a control body's JSON text once, strictly by RFC 8259, before the decoder does, so
/// that a control body gets a 400 naming the place of what is wrong (docs/protocol.md#errors);
/// a file mock's sidecar is read by it too (docs/files.md#sidecar), so that it is JSON by the
/// same rule and its errors are worded alike:
///
/// - JSON syntax errors, with the line, column and byte offset (``JSONSyntaxError``), and
///   what JSON5 or JavaScript allow but JSON does not, which Foundation's parser accepts
///   silently or refuses without saying where: a trailing comma (`{"a":1,}`, `[1,2,]`), a
///   comment, a single-quoted string or unquoted key, `NaN` and `Infinity`, a leading `+`,
///   `0`, or `.` in a number, a control character in a string, bytes that are not UTF-8;
/// - an object that names the same key twice (accepted, the last value wins): a control body
///   whose `"limit"` appears twice is a mistake, and guessing which one was meant would hide it;
/// - a lone surrogate escape (`"\ud800"` with no `\udc00`…`\udfff` after it, or a low one
///   alone), which encodes no character: the decoder calls the JSON malformed, or the field
///   the wrong type;
/// - a number out of the range of a 64-bit float: too large (`1e400`), or so small it would
///   round to 0 while it is not 0 (`1e-400`), which the decoder calls malformed, or the field
///   the wrong type.
///
/// It also measures how deep arrays and objects nest, for the reason given when Foundation's
/// parser gives up on deep nesting. Keys are compared with their escapes decoded (`"a"` and
/// `"\u0061"` are the same key): in a control body or a sidecar by Swift's `==`, as the
/// decoder that reads them joins keys (`"é"` and `"e\u0301"` are one key there); in a `json`
/// pattern's value exactly, Unicode scalar by scalar (``ExactString``), as the `json` matcher
/// compares keys (RFC 8259 §8.3; docs/matching.md#body-matchers, tester21a-F5). Containers are
/// tracked on a stack, not by recursion, so any depth is read.
package enum JSONTextCheck {
    /// What the scanned text is called in a reason, so that each reader's errors name what the
    /// user sent: `the body` (a control body), `the file` (a file mock's sidecar), `the value`
    /// (a `json` body pattern's value).
    package enum Subject: String, Sendable {
        case body, file, value

        /// `the body`, `the file`, `the value`.
        var name: String { "the \(rawValue)" }
        /// `a body`, `a file`, `a value`.
        var anyOne: String { "a \(rawValue)" }
    }

    /// One step of a path into a JSON text: an object's key or an array's position.
    package enum PathStep: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The most ``Findings/numbersLosingFraction`` kept: 8.
    package static let numbersLosingFractionKept = 8

    /// What was found: the first syntax error, else the first of each other kind; paths are
    /// dotted (`pattern.body.equalTo`, array positions as `[N]`, `""` for the top level).
    package struct Findings {
        /// The reason for a 400 for the first syntax error (``JSONSyntaxError/reason(in:)``);
        /// the scan stops there, so the other findings cover only the text before it.
        package var syntaxError: String?
        /// The first duplicate key: the path of the object holding it, and the key.
        package var duplicateKey: (path: String, key: String)?
        /// The first lone surrogate: the path of the string holding it, and the escape as written.
        package var loneSurrogate: (path: String, escape: String)?
        /// The first number a 64-bit float cannot hold (too large, or not 0 but rounding to 0):
        /// its path and its text.
        package var numberOutOfRange: (path: String, literal: String)?
        /// The first few numbers written with a fraction that a 64-bit float loses whole
        /// (`9007199254740993.5` reads as a whole number): each one's path as keys and array
        /// positions, as the reasons write it (`response.limit`), and its text. At most
        /// ``numbersLosingFractionKept``.
        package var numbersLosingFraction: [(steps: [PathStep], path: String, literal: String)] = []
        /// The deepest nesting of arrays and objects, as far as the scan went.
        package var deepestNesting = 0
        /// What the text is called in the reasons (`the JSON body has …`, `the JSON file has …`).
        let subject: Subject
        /// The values read (each array element, object member's value and the top-level value,
        /// containers included), as far as the scan went.
        package var valueCount = 0
        /// Whether the scan stopped at the `valueLimit` it was given, at value `valueLimit + 1`
        /// (nothing after it was read, so ``syntaxError`` and the rest cover only the text before).
        package var valueLimitExceeded = false

        /// The reason for a 400 for a lone surrogate or an out-of-range number, or nil.
        package var unrepresentableValue: String? {
            if let (path, escape) = loneSurrogate {
                return "\(place(path)) holds the escape \(escape), a lone surrogate, which encodes no character: "
                    + "a \\ud800…\\udbff escape must be followed by a \\udc00…\\udfff one (the pair writes one character); "
                    + "send the character itself or its surrogate pair"
            }
            if let (path, literal) = numberOutOfRange {
                return "\(place(path)) is the number \(JSONText.shortText(literal)), out of range: a JSON number here must be within "
                    + "±1.7976931348623157e308 and, unless it is 0, at least 5e-324 in size (a 64-bit float)"
            }
            return nil
        }

        /// The reason for a 400 for the first duplicate key, or nil: `the JSON object 'pattern'
        /// has the key "url" more than once; give each key once` (`the JSON body has …` at the top level,
        /// `the JSON file has …` for a sidecar).
        package var duplicateKeyReason: String? {
            guard let (path, key) = duplicateKey else { return nil }
            let object = path.isEmpty ? "the JSON \(subject.rawValue)" : "the JSON object '\(path)'"
            return "\(object) has the key \(JSONText.shortString(key)) more than once; give each key once"
        }

        private func place(_ path: String) -> String {
            path.isEmpty ? "the JSON \(subject.rawValue)" : "'\(path)'"
        }
    }

    /// Reads `bytes` once, up to the first syntax error.
    /// - Parameters:
    ///   - subject: what the reasons call the text (`the body ends inside a string`,
    ///     `the file is empty`); a control body by default.
    ///   - valueLimit: the most values to read; the scan stops at the next one
    ///     (``Findings/valueLimitExceeded``), so that a text of millions of values costs no more
    ///     than the limit's worth (its keys are kept to find repeated ones). Nil: no limit.
    package static func scan(_ bytes: [UInt8], as subject: Subject = .body, valueLimit: Int? = nil) -> Findings {
        var reader = JSONTextReader(bytes: bytes, subject: subject)
        reader.valueLimit = valueLimit ?? .max
        do {
            try reader.readText()
        } catch {
            if !reader.findings.valueLimitExceeded { reader.findings.syntaxError = error.reason(in: bytes) }
        }
        return reader.findings
    }
}

extension JSONTextCheck {
    /// The text of the JSON string whose opening quote is at `quote` in `bytes`, its escapes
    /// decoded (RFC 8259 §7, as ``scan(_:as:valueLimit:)`` reads strings; a lone surrogate
    /// escape becomes U+FFFD), or nil when no valid string starts there. Reads only the
    /// string: what follows it is not looked at.
    package static func string(openingAt quote: Int, in bytes: [UInt8]) -> String? {
        guard bytes.indices.contains(quote), bytes[quote] == UInt8(ascii: "\"") else { return nil }
        var reader = JSONTextReader(bytes: bytes, subject: .body)
        reader.index = quote
        return try? reader.readString(keepingText: true).text
    }
}

extension JSONTextCheck {
    /// Whether the JSON number `literal` (valid JSON) has a nonzero fractional part as written,
    /// exactly, its exponent applied to its digits: `2.5`, `45035996273704975e-1`,
    /// `3.0000000000000000000000000000001e0` do; `2.50e1`, `1e2`, `7.0` do not.
    package static func hasFraction(_ literal: some Collection<UInt8>) -> Bool {
        var digits: [UInt8] = []
        var pointAt: Int?
        var exponent = 0
        var iterator = literal.makeIterator()
        var negativeExponent = false
        var inExponent = false
        while let byte = iterator.next() {
            if inExponent {
                if byte == UInt8(ascii: "-") { negativeExponent = true } else if byte != UInt8(ascii: "+") {
                    // Clamped: past the digits' count either way the answer no longer changes.
                    exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000)
                }
            } else if byte == UInt8(ascii: ".") {
                pointAt = digits.count
            } else if byte | 0x20 == UInt8(ascii: "e") {
                inExponent = true
            } else if byte != UInt8(ascii: "-") {
                digits.append(byte)
            }
        }
        // Where the point stands among the digits once the exponent is applied.
        let point = (pointAt ?? digits.count) + (negativeExponent ? -exponent : exponent)
        return digits[max(0, min(point, digits.count))...].contains { $0 != UInt8(ascii: "0") }
    }
}

extension JSONTextCheck {
    /// Whether the JSON number `literal` is beyond a 64-bit float: infinite when read, or read
    /// as 0 while a digit before its exponent is not 0 (`1e-400`, `2e-324`). Foundation's decoder
    /// refuses both; its `JSONSerialization` reads the second as 0. The scan's rule
    /// (``Findings/numberOutOfRange``), and `jsonPath`'s reading of a body (JSONPathDocument).
    package static func isOutOfRange(_ literal: some Collection<UInt8>) -> Bool {
        guard let value = Double(String(decoding: literal, as: UTF8.self)) else { return false }
        if value.isInfinite { return true }
        guard value == 0 else { return false }
        let mantissa = literal.prefix { $0 | 0x20 != UInt8(ascii: "e") }
        return mantissa.contains { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }
    }
}

/// The reading behind ``JSONTextCheck/scan(_:as:valueLimit:)``: one JSON text, its containers on ``stack``.
/// Lexing of strings, numbers and literals: `JSONTextReader+Tokens.swift`.
struct JSONTextReader {
    let bytes: [UInt8]
    /// The next byte to read.
    var index = 0
    /// The open containers, outermost first.
    var stack: [Frame] = []
    /// The keys so far of each open object, innermost last. Kept apart from ``stack`` so that a
    /// key is inserted in place: a set held in a frame was also held by copies of the frame
    /// (the closing loop's `top`), so every insert copied it, and an object of n keys cost n²
    /// (20,000 header patterns: 11 s per mock update, try7b F9).
    var objectKeys: [Set<ObjectKey>] = []
    var findings: JSONTextCheck.Findings
    /// What the reasons call the text.
    let subject: JSONTextCheck.Subject
    /// The most values read before the scan stops (``JSONTextCheck/scan(_:as:valueLimit:)``).
    var valueLimit = Int.max
    /// `the body`, `the file`, `the value`: ``subject``'s name in a reason.
    var subjectName: String { subject.name }

    /// A key as this text's reader compares it (see ``JSONTextCheck``): by canonical
    /// equivalence for a control body or a sidecar, exactly for a `json` pattern's value.
    enum ObjectKey: Hashable {
        case canonical(String)
        case exact(ExactString)
    }

    /// One open container: an object's last key (its keys so far are in ``objectKeys``), or an array's position.
    enum Frame {
        case object(key: String?)
        case array(index: Int)
    }

    init(bytes: [UInt8], subject: JSONTextCheck.Subject) {
        self.bytes = bytes
        self.findings = JSONTextCheck.Findings(subject: subject)
        self.subject = subject
    }

    /// Reads the whole text: one value between optional whitespace, after an optional UTF-8
    /// byte order mark (which RFC 8259 §8.1 lets a parser ignore, and Foundation's did).
    /// - Throws: ``JSONSyntaxError`` at the first byte that is not JSON; at 0 for UTF-16 or
    ///   UTF-32 text (a byte order mark of theirs, or a NUL byte among the first two), which
    ///   RFC 8259 §8.1 does not allow between systems.
    mutating func readText() throws(JSONSyntaxError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(2).contains(0) {
            throw JSONSyntaxError(at: 0, "\(subjectName) is UTF-16 or UTF-32 text: JSON text is UTF-8 (RFC 8259 §8.1)")
        }
        skipWhitespace()
        guard index < bytes.count else { throw JSONSyntaxError(at: index, "\(subjectName) is empty: a JSON value was expected") }
        try readValue()
        skipWhitespace()
        guard index < bytes.count else { return }
        throw JSONSyntaxError(
            at: index, notJSON(at: index) ?? "more text after the JSON value: found \(found(at: index)) (\(subject.anyOne) holds one value)")
    }

    /// Reads one value at ``index``, nested containers included: each value is followed by
    /// the `,` or closing bracket of its container, until the outermost one closes.
    private mutating func readValue() throws(JSONSyntaxError) {
        var comma: Int?  // where the `,` before this value was, for a trailing comma's reason
        values: while true {
            skipWhitespace()
            guard index < bytes.count else { throw JSONSyntaxError(at: index, "\(Self.expectedValue), found the end of \(subjectName)") }
            findings.valueCount += 1
            if findings.valueCount > valueLimit {
                findings.valueLimitExceeded = true
                throw JSONSyntaxError(at: index, "more values than the limit")  // not a syntax error: scan(_:as:valueLimit:) drops it
            }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                open(.object(key: nil))
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    closeContainer()
                } else {
                    try readKey(afterComma: nil)
                    comma = nil
                    continue values
                }
            case UInt8(ascii: "["):
                index += 1
                open(.array(index: 0))
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    closeContainer()
                } else {
                    comma = nil
                    continue values
                }
            case UInt8(ascii: "\""):
                if let lone = try readString(keepingText: false).lone, findings.loneSurrogate == nil {
                    findings.loneSurrogate = (path(of: stack[...]), lone)
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try readNumber()
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                try readLiteral()
            default:
                if let comma, bytes[index] == UInt8(ascii: "]") {
                    throw JSONSyntaxError(at: comma, "a trailing comma before ']': JSON allows none (RFC 8259)")
                }
                throw JSONSyntaxError(
                    at: index, notJSON(at: index) ?? wordProblem(at: index)
                        ?? "\(Self.expectedValue), found \(found(at: index))")
            }
            // The value is complete: close the containers it ends, or go on after a comma.
            while let top = stack.last {
                skipWhitespace()
                let close = if case .object = top { UInt8(ascii: "}") } else { UInt8(ascii: "]") }
                guard index < bytes.count, bytes[index] == UInt8(ascii: ",") || bytes[index] == close else {
                    let after = if case .object(let key?) = top { "the value of \(JSONText.string(key))" } else { "an array element" }
                    throw JSONSyntaxError(
                        at: index, notJSON(at: index) ?? "expected ',' or '\(Character(Unicode.Scalar(close)))' after \(after), "
                            + "found \(found(at: index))")
                }
                index += 1
                if bytes[index - 1] == close {
                    closeContainer()
                    continue
                }
                switch top {
                case .array(let position):
                    stack[stack.count - 1] = .array(index: position + 1)
                    comma = index - 1
                case .object:
                    try readKey(afterComma: index - 1)
                    comma = nil
                }
                continue values
            }
            return
        }
    }

    /// Reads an object's key and the `:` after it, at ``index`` (whitespace before it skipped),
    /// and notes a key given twice.
    /// - Parameter comma: where the `,` before the key was, when there was one.
    private mutating func readKey(afterComma comma: Int?) throws(JSONSyntaxError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            if let comma, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                throw JSONSyntaxError(at: comma, "a trailing comma before '}': JSON allows none (RFC 8259)")
            }
            if let word = word(at: index) {
                throw JSONSyntaxError(at: index, "the key \(word) is not in double quotes: write \"\(word)\"")
            }
            throw JSONSyntaxError(
                at: index, notJSON(at: index) ?? "expected a key in double quotes, found \(found(at: index))")
        }
        let (key, lone) = try readString(keepingText: true)
        guard case .object = stack.last else { return }
        if let lone, findings.loneSurrogate == nil { findings.loneSurrogate = (path(of: stack.dropLast()), lone) }
        let compared: ObjectKey = subject == .value ? .exact(ExactString(key)) : .canonical(key)
        if !objectKeys[objectKeys.count - 1].insert(compared).inserted, findings.duplicateKey == nil {
            findings.duplicateKey = (path(of: stack.dropLast()), key)
        }
        stack[stack.count - 1] = .object(key: key)
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw JSONSyntaxError(
                at: index, notJSON(at: index) ?? "expected ':' after the key \(JSONText.string(key)), found \(found(at: index))")
        }
        index += 1
    }

    /// What a value may be, for the reasons that expected one.
    static let expectedValue = "expected a value (an object, array, string, number, true, false or null)"

    private mutating func open(_ frame: Frame) {
        stack.append(frame)
        if case .object = frame { objectKeys.append([]) }
        findings.deepestNesting = max(findings.deepestNesting, stack.count)
    }

    /// Closes the innermost container.
    private mutating func closeContainer() {
        if case .object = stack.removeLast() { objectKeys.removeLast() }
    }

    /// Skips JSON's whitespace: space, tab, LF and CR (RFC 8259 §2), nothing else.
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The steps of the containers in `frames` (``JSONTextCheck/PathStep``).
    func steps(of frames: ArraySlice<Frame>) -> [JSONTextCheck.PathStep] {
        frames.compactMap { frame in
            switch frame {
            case .object(let key?): .key(key)
            case .array(let position): .index(position)
            case .object(nil): nil
            }
        }
    }

    /// `pattern.headers`, `items[2].name`: the path of the containers in `frames`.
    func path(of frames: ArraySlice<Frame>) -> String {
        var text = ""
        for frame in frames {
            switch frame {
            case .object(let key?):
                if !text.isEmpty { text += "." }
                text += JSONText.shortText(key)
            case .array(let position):
                text += "[\(position)]"
            case .object(nil):
                break
            }
        }
        return text
    }
}
