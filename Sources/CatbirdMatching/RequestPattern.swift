/// What a mock answers: an HTTP method, a URL pattern and header patterns.
///
/// JSON shape (spec 1.1): `{"method": "GET", "url": PatternMatch, "headers": {"Name": PatternMatch}}`.
/// `method` and `url` are required. The Catbird 0.11 client always sends `headers`; Catbird 0.11
/// rejected a missing one, this server accepts a missing or `null` `headers` as `{}` (spec 1.1).
/// Encoding always writes all three keys.
///
/// Equality (method, url kind+value, header patterns; header names compared exactly as sent) is the
/// "same pattern" test for `update` replacing a mock in place and for `remove` (spec 1.1).
/// Matching semantics live in ``CompiledRequestPattern``.
public struct RequestPattern: Codable, Sendable, Hashable {
    /// The request method, compared exactly and case-sensitively (spec 1.1), e.g. `"GET"`.
    public var method: String
    /// Pattern for the request-target as received (path + query, or absolute URL), spec 1.3.
    public var url: PatternMatch
    /// Header name → pattern for that header's first value; names are matched case-insensitively (spec 1.3).
    public var headers: [String: PatternMatch]

    /// Creates a pattern; `headers` defaults to none.
    public init(method: String, url: PatternMatch, headers: [String: PatternMatch] = [:]) {
        self.method = method
        self.url = url
        self.headers = headers
    }

    private enum CodingKeys: String, CodingKey {
        case method, url, headers
    }

    /// Decodes the spec 1.1 shape; a missing or `null` `headers` becomes `[:]`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(PatternMatch.self, forKey: .url)
        headers = try container.decodeIfPresent([String: PatternMatch].self, forKey: .headers) ?? [:]
    }

    /// Encodes `method`, `url` and `headers` (always present, `{}` when empty), like the 0.11 client.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
    }
}
