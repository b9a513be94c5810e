import Foundation

/// How a request's URL or a header value is compared with a mock's pattern.
///
/// Wire shape: `{"kind": "equal" | "wildcard" | "regexp", "value": "…"}`, both keys required.
/// Two patterns are equal when kind and value are equal (what `update` uses to replace a mock
/// in place). The rules of each kind: docs/matching.md#pattern-kinds.
public struct PatternMatch: Codable, Hashable, Sendable {
    /// The comparison a ``PatternMatch`` makes.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable, WireName {
        /// The whole subject equals `value` (case-sensitive). For a URL the subject is the
        /// request-target as received: path and query, e.g. `/api/books?id=1`.
        case equal
        /// Catbird's glob, anchored and case-insensitive: `*` any run (crossing `/`), `?` one
        /// character, `[a-z]` classes, `{a,b}` alternatives, `\*` a literal star.
        case wildcard
        /// An unanchored, case-insensitive regular expression search (ICU syntax). The server
        /// rejects an invalid expression with a 400 (``CatbirdError``) when the mock is added.
        case regexp

        /// Reads one of the wire names.
        ///
        /// - Throws: `DecodingError.dataCorrupted` naming the coding path and the allowed
        ///   values for any other string; `DecodingError.typeMismatch` for a non-string.
        public init(from decoder: any Decoder) throws {
            self = try Self.decodeName(from: decoder)
        }
    }

    /// The comparison to make.
    public let kind: Kind

    /// The text, glob or regular expression to compare with.
    public let value: String

    /// A pattern of the given kind.
    ///
    /// - Parameters:
    ///   - kind: the comparison to make.
    ///   - value: the text, glob or regular expression to compare with.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, value
    }

    /// Reads the wire shape.
    ///
    /// - Throws: `DecodingError` when `kind` or `value` is missing or of the wrong type, or for
    ///   an unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        value = try container.decode(String.self, forKey: .value)
    }

    /// A pattern matching exactly `value` (case-sensitive).
    public static func equal(_ value: String) -> PatternMatch {
        PatternMatch(kind: .equal, value: value)
    }

    /// A pattern matching the glob `value` (anchored, case-insensitive; see ``Kind/wildcard``).
    public static func wildcard(_ value: String) -> PatternMatch {
        PatternMatch(kind: .wildcard, value: value)
    }

    /// A pattern searching for the regular expression `value` (unanchored, case-insensitive).
    public static func regexp(_ value: String) -> PatternMatch {
        PatternMatch(kind: .regexp, value: value)
    }
}

extension PatternMatch {
    /// One line for a person: the kind and the value as a JSON string, `equal "/api/users"`
    /// (near misses' `expected`, ``RequestPattern/summary``).
    public var summary: String {
        "\(kind.rawValue) \(JSONValue.string(value).jsonText)"
    }
}
