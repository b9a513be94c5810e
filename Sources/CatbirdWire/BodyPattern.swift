import Foundation

/// How a request's body is compared with a mock's pattern (docs/matching.md#body-matchers).
///
/// Wire shape: `{"kind": "equal" | "contains" | "regexp" | "json" | "jsonPath", "value": "…"}`,
/// plus `"equalTo": <any JSON value>` for `jsonPath` equality. The Catbird 0.11 client never
/// sends a body pattern; a ``RequestPattern`` without one ignores the body.
///
/// | kind | `value` | matches when |
/// |---|---|---|
/// | `equal` | text | the body's bytes are exactly `value`'s UTF-8 bytes |
/// | `contains` | text | `value`'s UTF-8 bytes occur in the body (an empty `value` always does) |
/// | `regexp` | ICU regular expression | found anywhere in the body read as UTF-8 (case-insensitive, like the url's `regexp`) |
/// | `json` | JSON text | the body is JSON equal to `value`, ignoring key order and whitespace |
/// | `jsonPath` | SQLite JSON path, `$.user.id`, `$.items[0]` | the body is JSON with that field (any value, `null` included); with `equalTo`, the field's value equals it (as for `json`) |
public struct BodyPattern: Codable, Hashable, Sendable {
    /// The comparison a ``BodyPattern`` makes.
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable, WireName {
        /// The whole body equals `value` (bytes, case-sensitive).
        case equal
        /// `value` occurs in the body (bytes, case-sensitive).
        case contains
        /// An unanchored, case-insensitive ICU regular expression search in the body as UTF-8 text.
        case regexp
        /// The body is JSON equal to the JSON text `value` (key order and whitespace ignored).
        case json
        /// The body is JSON holding the field at the SQLite JSON path `value` (equal to
        /// ``BodyPattern/equalTo`` when that is given).
        case jsonPath

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

    /// The text, regular expression, JSON text or JSON path to compare with.
    public let value: String

    /// For `jsonPath` only: the value the field must equal; nil checks presence only. (JSON
    /// `null` here is ``JSONValue/null``: the field must be present and null.)
    public let equalTo: JSONValue?

    /// A body pattern.
    ///
    /// - Parameters:
    ///   - kind: the comparison to make.
    ///   - value: the text, expression, JSON text or JSON path.
    ///   - equalTo: for `jsonPath`, the value the field must equal; nil for presence.
    public init(kind: Kind, value: String, equalTo: JSONValue? = nil) {
        self.kind = kind
        self.value = value
        self.equalTo = equalTo
    }

    /// The body is exactly `text` (its UTF-8 bytes).
    public static func equal(_ text: String) -> BodyPattern { BodyPattern(kind: .equal, value: text) }

    /// The body contains `text` (its UTF-8 bytes).
    public static func contains(_ text: String) -> BodyPattern { BodyPattern(kind: .contains, value: text) }

    /// The regular expression `expression` is found in the body (unanchored, case-insensitive).
    public static func regexp(_ expression: String) -> BodyPattern { BodyPattern(kind: .regexp, value: expression) }

    /// The body is JSON equal to the JSON text `json`, ignoring key order and whitespace.
    public static func json(_ json: String) -> BodyPattern { BodyPattern(kind: .json, value: json) }

    /// The body is JSON with a field at the SQLite JSON path `path` (`$.user.id`,
    /// `$.items[0].name`); with `equalTo`, that field equals it.
    public static func jsonPath(_ path: String, equalTo: JSONValue? = nil) -> BodyPattern {
        BodyPattern(kind: .jsonPath, value: path, equalTo: equalTo)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, value, equalTo
    }

    /// Reads the wire shape. `"equalTo": null` is a null to compare with, not an absent key.
    ///
    /// - Throws: `DecodingError` when `kind` or `value` is missing or of the wrong type, or for
    ///   an unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        value = try container.decode(String.self, forKey: .value)
        equalTo = container.contains(.equalTo) ? try container.decode(JSONValue.self, forKey: .equalTo) : nil
    }

    /// Writes the wire shape; `equalTo` only when set.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(equalTo, forKey: .equalTo)
    }

    /// One line for a person: `jsonPath "$.id" equalTo 7`, `contains "abc"`.
    public var summary: String {
        let quoted = JSONValue.string(value).jsonText
        guard let equalTo else { return "\(kind.rawValue) \(quoted)" }
        return "\(kind.rawValue) \(quoted) equalTo \(equalTo.jsonText)"
    }
}
