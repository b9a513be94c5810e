import Foundation

/// Which requests a mock answers: method, URL, header and body patterns (all must match; the
/// rules: docs/matching.md#request-matching).
///
/// Wire shape: `{"method": "GET", "url": PatternMatch, "headers": {"Name": PatternMatch},
/// "body": BodyPattern}`; `headers` is always written (`{}` when empty) and read as `{}` when
/// missing; `body` is written only when set (so a pattern without one is Catbird 0.11's shape).
public struct RequestPattern: Codable, Hashable, Sendable {
    /// The request method, compared exactly (case-sensitive).
    public var method: HTTPMethod

    /// The pattern for the request-target (path and query as received, e.g. `/api/books?id=1`;
    /// the absolute URL for proxy-form requests).
    public var url: PatternMatch

    /// Header patterns by header name (names compared case-insensitively by the server). Each
    /// must match the first value of its header; headers the pattern does not name are ignored.
    public var headers: [String: PatternMatch]

    /// The body pattern; nil ignores the body (docs/matching.md#body-matchers).
    public var body: BodyPattern?

    /// A request pattern.
    ///
    /// - Parameters:
    ///   - method: the request method, such as `.GET` or `"GET"`.
    ///   - url: the request-target pattern: a ``PatternMatch``, or a `String`/`URL` matched exactly.
    ///   - headers: header patterns by header name; `String` values are matched exactly.
    ///   - body: the body pattern, such as `.jsonPath("$.user.id", equalTo: 7)`; nil ignores the body.
    public init(
        method: HTTPMethod, url: any PatternRepresentable, headers: [String: any PatternRepresentable] = [:],
        body: BodyPattern? = nil
    ) {
        self.method = method
        self.url = url.pattern
        self.headers = headers.mapValues(\.pattern)
        self.body = body
    }

    /// A request pattern from patterns already made (for code that holds ``PatternMatch``
    /// values, such as the server reading its table, where `.equal("/x")` reads best).
    @_spi(Server) public init(
        method: HTTPMethod, url: PatternMatch, headers: [String: PatternMatch] = [:], body: BodyPattern? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case method, url, headers, body
    }

    /// Reads the wire shape; a missing or `null` `headers` reads as `{}`, a missing or `null`
    /// `body` as none.
    ///
    /// - Throws: `DecodingError` when `method` or `url` is missing or of the wrong type, or for
    ///   an unknown key when refused (``UnknownWireKeys``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.refuseUnknownKeys(besides: CodingKeys.self)
        method = try container.decode(HTTPMethod.self, forKey: .method)
        url = try container.decode(PatternMatch.self, forKey: .url)
        headers = try container.decodeIfPresent([String: PatternMatch].self, forKey: .headers) ?? [:]
        body = try container.decodeIfPresent(BodyPattern.self, forKey: .body)
    }

    /// Writes the wire shape, `headers` always included, `body` only when set.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(body, forKey: .body)
    }
}

extension RequestPattern {
    /// One line for a person: `POST equal "/login" X-Token: equal "abc" body jsonPath "$.login" equalTo "john"`
    /// (headers by name).
    public var summary: String {
        var parts = [method.rawValue, url.summary]
        parts += headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.summary)" }
        if let body { parts.append("body \(body.summary)") }
        return parts.joined(separator: " ")
    }
}
