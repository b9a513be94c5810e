import CatbirdSupport

/// What a `GET` with a `Range` header gets from a representation of known length, by RFC 9110
/// §14 (byte ranges) and §13.1.5 (`If-Range`): the whole representation (200), one part of it
/// (206 with `Content-Range`), or nothing (416 with `Content-Range: bytes */length`). Rules as
/// the server applies them: docs/files.md#byte-ranges.
public enum ByteRanges {
    /// The outcome of a request's `Range` against a representation.
    public enum Outcome: Equatable, Sendable {
        /// Send the whole representation with its own status: no `Range`, one that is not valid
        /// `bytes=` syntax or names no unit we know (ignored, §14.2), an `If-Range` that does not
        /// match (§13.1.5), several ranges of which one at least is satisfiable (answered whole,
        /// which §14.2 allows in place of `multipart/byteranges`), or a suffix range of an empty
        /// representation.
        case whole
        /// Send these bytes of it (offsets from 0, end excluded) as 206 with ``contentRange(_:length:)``.
        case part(Range<Int>)
        /// No range overlaps it (every `first-pos` at or past its length, or a suffix of 0 bytes): 416
        /// with ``unsatisfiedRange(length:)``.
        case unsatisfiable
    }

    /// The outcome of `range` (the request's `Range` field; nil: none) against a representation of
    /// `length` bytes whose validators are `entityTag` (its `ETag`) and `lastModified` (its
    /// `Last-Modified`), given the request's `If-Range` (nil: none). Only a `GET` has ranges
    /// (§14.2): the caller asks for nothing else.
    ///
    /// `If-Range` with an entity tag matches by strong comparison (neither weak, same opaque
    /// tag); with a date, only when it is the `Last-Modified` value exactly. A `Range` that does
    /// not parse is ignored: `bytes=5-2` (last before first), `items=0-1`, `bytes=a-b`.
    public static func outcome(range: String?, ifRange: String?, entityTag: String?, lastModified: String?, length: Int) -> Outcome {
        guard let range, let specs = parse(range) else { return .whole }
        if let ifRange, !validatorMatches(ifRange, entityTag: entityTag, lastModified: lastModified) { return .whole }
        var satisfiable: [Range<Int>] = []
        var emptySuffix = false
        for spec in specs {
            switch spec {
            case let .from(first, last):
                if first < length { satisfiable.append(first..<(min(last ?? Int.max - 1, length - 1) + 1)) }
            case let .suffix(count):
                guard count > 0 else { continue }
                if length == 0 { emptySuffix = true } else { satisfiable.append(max(0, length - count)..<length) }
            }
        }
        if satisfiable.isEmpty { return emptySuffix ? .whole : .unsatisfiable }
        return specs.count == 1 ? .part(satisfiable[0]) : .whole
    }

    /// `Content-Range` of a 206: `bytes 0-1/300000` (last byte included).
    public static func contentRange(_ part: Range<Int>, length: Int) -> String {
        "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)"
    }

    /// `Content-Range` of a 416: `bytes */300000`.
    public static func unsatisfiedRange(length: Int) -> String {
        "bytes */\(length)"
    }

    /// One `range-spec`: `first-last` / `first-`, or `-count` (the last `count` bytes).
    enum Spec: Equatable {
        case from(Int, Int?)
        case suffix(Int)
    }

    /// The specs of a `bytes=` range set (unit case-insensitive, list elements separated by
    /// commas with optional whitespace, empty elements skipped), or nil when it is not one.
    /// Numbers too large for an `Int` read as `Int.max` (past any length).
    static func parse(_ value: String) -> [Spec]? {
        let text = Substring(value).trimmingOptionalWhitespace()
        guard let equals = text.firstIndex(of: "="), text[..<equals].lowercased() == "bytes" else { return nil }
        var specs: [Spec] = []
        for element in text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let spec = element.trimmingOptionalWhitespace()
            if spec.isEmpty { continue }
            guard let dash = spec.firstIndex(of: "-") else { return nil }
            let first = spec[..<dash], last = spec[spec.index(after: dash)...]
            if first.isEmpty {
                guard let count = number(last) else { return nil }
                specs.append(.suffix(count))
            } else {
                guard let start = number(first) else { return nil }
                if last.isEmpty {
                    specs.append(.from(start, nil))
                } else {
                    guard let end = number(last), end >= start else { return nil }
                    specs.append(.from(start, end))
                }
            }
        }
        return specs.isEmpty ? nil : specs
    }

    /// The decimal number `digits` (ASCII digits only), `Int.max` when it overflows; nil otherwise.
    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var value = 0
        for byte in digits.utf8 {
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflowed || overflowedAgain { return Int.max }
            value = sum
        }
        return value
    }

    /// Whether an `If-Range` value lets the range through (§13.1.5): an entity tag strongly
    /// equal to `entityTag`, or a date equal to `lastModified`.
    private static func validatorMatches(_ value: String, entityTag: String?, lastModified: String?) -> Bool {
        let given = Substring(value).trimmingOptionalWhitespace()
        if given.hasPrefix("\"") || given.hasPrefix("W/") {
            guard let entityTag = entityTag.map({ Substring($0).trimmingOptionalWhitespace() }) else { return false }
            return !given.hasPrefix("W/") && !entityTag.hasPrefix("W/") && given == entityTag
        }
        return lastModified.map { Substring($0).trimmingOptionalWhitespace() == given } ?? false
    }
}
