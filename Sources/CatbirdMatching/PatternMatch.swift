/// How a ``PatternMatch`` compares its `value` with a subject string.
///
/// Wire format: the JSON strings `"equal"`, `"wildcard"` and `"regexp"` (Catbird 0.11
/// `PatternMatch.Kind`, spec 1.1). Semantics of each kind are in spec 1.3 and implemented by
/// ``CompiledPatternMatch``.
public enum PatternKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// Exact, case-sensitive string equality (spec 1.3).
    case equal
    /// Catbird 0.11 wildcard (`*`, `?`, `[…]`, `{a,b}`), anchored and case-insensitive (spec 1.3).
    case wildcard
    /// ICU / NSRegularExpression, unanchored search, case-insensitive (spec 1.3).
    case regexp

    /// Decodes one of the three wire names; anything else throws a `DecodingError.dataCorrupted`
    /// whose reason names the coding path and the allowed values (see `ControlAction.describe(_:)`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let kind = PatternKind(rawValue: raw) else {
            throw DecodingError.readable(
                at: decoder.codingPath,
                "\(CodingPathText.quoted(decoder.codingPath, orElse: "kind")) must be \"equal\", \"wildcard\" or \"regexp\", not \(CodingPathText.jsonQuoted(raw))"
            )
        }
        self = kind
    }
}

/// One pattern: a kind plus the text it is compared against.
///
/// JSON shape (spec 1.1): `{"kind": "equal" | "wildcard" | "regexp", "value": "..."}`; both keys
/// required. Two patterns are equal when kind and value are equal (used for Catbird 0.11's
/// "update replaces the mock with an equal pattern", spec 1.1).
public struct PatternMatch: Codable, Sendable, Hashable {
    /// How ``value`` is interpreted.
    public var kind: PatternKind
    /// The literal string, wildcard or regular expression, exactly as sent by the client.
    public var value: String

    /// Creates a pattern of the given kind.
    public init(kind: PatternKind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// `PatternMatch(kind: .equal, value: value)`.
    public static func equal(_ value: String) -> PatternMatch { PatternMatch(kind: .equal, value: value) }
    /// `PatternMatch(kind: .wildcard, value: value)`.
    public static func wildcard(_ value: String) -> PatternMatch { PatternMatch(kind: .wildcard, value: value) }
    /// `PatternMatch(kind: .regexp, value: value)`.
    public static func regexp(_ value: String) -> PatternMatch { PatternMatch(kind: .regexp, value: value) }
}
