import CatbirdSupport
import CatbirdWire
import Foundation

/// Reads JSON text into an ``ExactJSON`` in one pass over its bytes, with the result
/// `JSONDecoder` gives (``JSONValue/init(json:)``) but for strings and keys, which are kept and
/// compared exactly (RFC 8259 §8.3: `"é"` and `"e\u0301"` are two keys), for the `json` body
/// pattern and its request bodies (docs/matching.md#body-matchers).
///
/// Why: ``JSONValue``'s `Decodable` reading tries each kind in turn, and every failed try makes
/// a `DecodingError` with its coding path; a 61.5 KB JSON array took about 40 ms of a worker's
/// CPU that way (try9a F18), some 60 times a parse. This parser costs about what one scan costs.
///
/// Where its reading could differ from `JSONDecoder`'s, it does not decide and
/// ``value(of:)`` asks `JSONDecoder` instead (``Outcome/unsure``): a text that does not start
/// with ASCII (a byte-order mark, UTF-16), a string with bytes that are not UTF-8, a control
/// character or a lone surrogate escape, a number outside the strict JSON grammar or
/// `Double`'s range. An object key named again (the same characters, however escaped) keeps
/// its **first** value, as `JSONDecoder` does. Text nested
/// deeper than ``JSONNesting/limit`` is not JSON (``Outcome/tooDeep``; `JSONDecoder`'s own
/// limit is the same 512 levels). Text that breaks JSON's grammar (RFC 8259) is not JSON, though
/// `JSONDecoder` reads some of it (`[1,]`, UTF-16 text): ``value(of:)``. So ordinary JSON takes
/// one pass, and only text this parser is unsure of costs what it did.
enum JSONBodyParser {
    /// What ``parse(_:)`` found.
    enum Outcome: Equatable {
        /// The text's value.
        case value(ExactJSON)
        /// Not RFC 8259 JSON (`JSONDecoder` may still read it).
        case notJSON
        /// Left to `JSONDecoder` (see the type's documentation).
        case unsure
        /// Nested deeper than ``JSONNesting/limit``: not read as JSON (docs/matching.md#json-nesting).
        case tooDeep
    }

    /// The value of the JSON text `bytes`, or nil when it is not JSON by RFC 8259: this
    /// parser's reading, or `JSONDecoder`'s where this one is unsure and the text is JSON as
    /// `jsonPath` reads it (``JSONPathDocument``: RFC 8259 grammar, UTF-8, a byte-order mark
    /// skipped). `JSONDecoder` alone is laxer than RFC 8259: it reads `{"a":1,}`, `[1,]` and
    /// UTF-16 text, which `jsonPath` (SQLite) and the control routes call not JSON; so a
    /// request body `{"a":1,}` matched the `json` pattern `{"a":1}` and no `jsonPath`, and a
    /// pattern `{"a":1,}` was accepted (tester finding try10a F12). Now neither is JSON here.
    static func value(of bytes: [UInt8]) -> ExactJSON? {
        switch parse(bytes) {
        case let .value(value): return value
        case .notJSON, .tooDeep: return nil
        case .unsure: return JSONPathDocument(bytes) == nil ? nil : JSONValue(json: Data(bytes)).map(ExactJSON.init)
        }
    }

    /// The value of a `json` pattern stored before ``value(of:)`` was strict: as it was read
    /// then, by `JSONDecoder` where this parser reads none (a trailing comma, UTF-16), so that
    /// a mock stored with `{"a":1,}` still loads, and matches the bodies `{"a":1}` it matched.
    static func storedPatternValue(of bytes: [UInt8]) -> ExactJSON? {
        if case let .value(value) = parse(bytes) { return value }
        return JSONValue(json: Data(bytes)).map(ExactJSON.init)
    }

    /// Parses `bytes` without asking `JSONDecoder`.
    static func parse(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            do throws(Stop) {
                scanner.skipWhitespace()
                let value = try scanner.value(depth: 0)
                scanner.skipWhitespace()
                guard scanner.position == buffer.count else { return .notJSON }
                return .value(value)
            } catch {
                switch error {
                case .notJSON: return .notJSON
                case .unsure: return .unsure
                case .tooDeep: return .tooDeep
                }
            }
        }
    }

    /// Why a parse stopped.
    fileprivate enum Stop: Error, Equatable {
        case notJSON
        case unsure
        case tooDeep
    }

    /// The parse's position in the text. Recursive, one level per array or object, at most
    /// ``JSONNesting/limit`` deep (as `JSONDecoder`, which reads at that depth already).
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        /// The next byte, or a stop at the end of the text.
        func peek() throws(Stop) -> UInt8 {
            guard position < bytes.count else { throw .notJSON }
            return bytes[position]
        }

        mutating func expect(_ word: StaticString) throws(Stop) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { throw .notJSON }
            let start = word.utf8Start
            for offset in 0..<count where bytes[position + offset] != start[offset] { throw .notJSON }
            position += count
        }

        mutating func value(depth: Int) throws(Stop) -> ExactJSON {
            switch try peek() {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(ExactString(try string()))
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            case 0x80...: throw .unsure
            default: throw .notJSON
            }
        }

        mutating func object(depth: Int) throws(Stop) -> ExactJSON {
            guard depth <= JSONNesting.limit else { throw .tooDeep }
            position += 1
            var members: [ExactString: ExactJSON] = [:]
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                guard try peek() == UInt8(ascii: "\"") else { throw .notJSON }
                let key = ExactString(try string())
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw .notJSON }
                position += 1
                skipWhitespace()
                let member = try value(depth: depth)
                // The same key again keeps its first value (JSONDecoder's reading); keys are
                // compared exactly, so `"é"` and `"e\u0301"` are two keys (tester21a-F5).
                if members[key] == nil { members[key] = member }
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    position += 1
                    return .object(members)
                default: throw .notJSON
                }
            }
        }

        mutating func array(depth: Int) throws(Stop) -> ExactJSON {
            guard depth <= JSONNesting.limit else { throw .tooDeep }
            position += 1
            var elements: [ExactJSON] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth))
                skipWhitespace()
                switch try peek() {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    position += 1
                    return .array(elements)
                default: throw .notJSON
                }
            }
        }

        /// A string from its opening quote.
        mutating func string() throws(Stop) -> String {
            position += 1
            let start = position
            var ascii = true
            while true {
                guard position < bytes.count else { throw .notJSON }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
                if byte < 0x20 { throw .unsure }
                if byte >= 0x80 { ascii = false }
                position += 1
            }
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
            position += 1
            if ascii { return String(decoding: slice, as: UTF8.self) }
            guard let text = String(validating: slice, as: UTF8.self) else { throw .unsure }
            return text
        }

        /// The rest of a string that has an escape, from its first byte at `start`.
        mutating func escapedString(from start: Int) throws(Stop) -> String {
            var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while true {
                guard position < bytes.count else { throw .notJSON }
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw .unsure }
                    return text
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { throw .notJSON }
                    let escape = bytes[position]
                    position += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): try appendUnicodeEscape(to: &utf8)
                    default: throw .notJSON
                    }
                case ..<0x20: throw .unsure
                default: utf8.append(byte)
                }
            }
        }

        /// `XXXX` after `\u` (with a following `\uXXXX` for a surrogate pair) as UTF-8.
        mutating func appendUnicodeEscape(to utf8: inout [UInt8]) throws(Stop) {
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw .unsure }
                position += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw .unsure }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .unsure
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .unsure }
            utf8.append(contentsOf: UTF8.encode(unicode)!)
        }

        mutating func hex4() throws(Stop) -> UInt32 {
            guard bytes.count - position >= 4 else { throw .notJSON }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = ASCIIByte.hexValue(bytes[position]) else { throw .notJSON }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// A number in RFC 8259's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) as
        /// `Double`; an integer of up to 15 digits exactly, any other by `Double(String)`.
        mutating func number() throws(Stop) -> Double {
            let start = position
            var negative = false
            if bytes[position] == UInt8(ascii: "-") {
                negative = true
                position += 1
            }
            let integerStart = position
            var integer: Int64 = 0
            while position < bytes.count, case let byte = bytes[position], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if position - integerStart < 18 { integer = integer * 10 + Int64(byte - UInt8(ascii: "0")) }
                position += 1
            }
            let integerDigits = position - integerStart
            guard integerDigits > 0 else { throw .unsure }
            if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw .unsure }
            var plainInteger = true
            if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
                plainInteger = false
                position += 1
                let fractionStart = position
                while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
                guard position > fractionStart else { throw .unsure }
            }
            if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
                plainInteger = false
                position += 1
                if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
                let exponentStart = position
                while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
                guard position > exponentStart else { throw .unsure }
            }
            if plainInteger && integerDigits <= 15 {
                let magnitude = Double(integer)
                return negative ? -magnitude : magnitude
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let parsed = Double(text), parsed.isFinite else { throw .unsure }
            // An underflow to zero (1e-400) is left to JSONDecoder's own reading.
            if parsed == 0 && text.contains(where: { $0 >= "1" && $0 <= "9" }) {
                // Only the exponent may hold non-zero digits in a true zero ("0e5"): ask JSONDecoder.
                throw .unsure
            }
            return parsed
        }
    }
}
