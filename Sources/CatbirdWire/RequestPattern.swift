import Foundation

/// Which requests a mock answers: method, URL and header patterns (all must match; the rules:
/// docs/matching.md#request-matching).
///
/// Wire shape: `{"method": "GET", "url": PatternMatch, "headers": {"Name": PatternMatch}}`;
/// `headers` is always written (`{}` when empty) and read as `{}` when missing.
public struct RequestPattern: Codable, Hashable, Sendable {
    /// The request method, compared exactly (case-sensitive).
    public var method: HTTPMethod

    /// The pattern for the request-target (path and query as received, e.g. `/api/books?id=1`;
    /// the absolute URL for proxy-form requests).
    public var url: PatternMatch

    /// Header patterns by header name (names compared case-insensitively by the server). Each
    /// must match the first value of its header; headers the pattern does not name are ignored.
    public var headers: [String: PatternMatch]

    /// A request pattern.
    ///
    /// - Parameters:
    ///   - method: the request method, such as `.GET` or `"GET"`.
    ///   - url: the request-target pattern: a ``PatternMatch``, or a `String`/`URL` matched exactly.
    ///   - headers: header patterns by header name; `String` values are matched exactly.
    public init(method: HTTPMethod, url: any PatternRepresentable, headers: [String: any PatternRepresentable] = [:]) {
        self.method = method
        self.url = url.pattern
        self.headers = headers.mapValues(\.pattern)
    }

    /// A request pattern from patterns already made (for code that holds ``PatternMatch``
    /// values, such as the server reading its table, where `.equal("/x")` reads best).
    @_spi(Server) public init(method: HTTPMethod, url: PatternMatch, headers: [String: PatternMatch] = [:]) {
        self.method = method
        self.url = url
        self.headers = headers
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers
    }

    /// Reads the wire shape; a missing or `null` `headers` reads as `{}`.
    ///
    /// - Throws: `DecodingError` when `method` or `url` is missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(HTTPMethod.self, forKey: .method)
        url = try container.decode(PatternMatch.self, forKey: .url)
        headers = try container.decodeIfPresent([String: PatternMatch].self, forKey: .headers) ?? [:]
    }

    /// Writes the wire shape, `headers` always included.
    ///
    /// - Throws: whatever the encoder throws (a JSONEncoder never does for this type).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
    }
}
