/// What a mock answers: an HTTP method, a URL pattern and header patterns.
///
/// JSON shape (spec 1.1): `{"method": "GET", "url": PatternMatch, "headers": {"Name": PatternMatch}}`.
/// `method` and `url` are required. The Catbird 0.11 client always sends `headers`; Catbird 0.11
/// rejected a missing one, this server accepts a missing or `null` `headers` as `{}` (spec 1.1).
/// Encoding always writes all three keys.
///
/// Equality (`==`) compares header names exactly as sent. The "same pattern" test for `update`
/// replacing a mock in place and for `remove` (spec 1.1) is ``isSamePattern(as:)`` instead: it
/// compares header names case-insensitively, as matching does, so `x-token` and `X-Token` name
/// the same header pattern. Matching semantics live in ``CompiledRequestPattern``.
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

extension RequestPattern {
    /// What makes two patterns "the same" for `update` and `remove` (spec 1.1): the method
    /// (exact), the url pattern (kind and value, exact), and the header patterns with their
    /// names lowercased (ASCII, as header matching compares them). Hashable, so it can key a
    /// dictionary of mocks.
    public struct Identity: Hashable, Sendable {
        /// The method, exactly as in the pattern.
        public let method: String
        /// The url pattern, exactly as in the pattern.
        public let url: PatternMatch
        /// Lowercased header name → the patterns given under every spelling of that name,
        /// sorted (a pattern may list `X-Token` and `x-token` both; matching checks each).
        public let headers: [String: [PatternMatch]]
    }

    /// This pattern's ``Identity``.
    public var identity: Identity {
        var grouped: [String: [PatternMatch]] = [:]
        for (name, pattern) in headers {
            grouped[Self.asciiLowercased(name), default: []].append(pattern)
        }
        return Identity(
            method: method, url: url,
            headers: grouped.mapValues { patterns in
                patterns.sorted { ($0.kind.rawValue, $0.value) < ($1.kind.rawValue, $1.value) }
            })
    }

    /// Whether `other` is the same pattern as this one for `update` (replace in place) and
    /// `remove`: same method and url pattern, and the same header patterns with header names
    /// compared case-insensitively (ASCII). `{"X-Token": equal "abc"}` and
    /// `{"x-token": equal "abc"}` are the same; values and kinds are still compared exactly.
    public func isSamePattern(as other: RequestPattern) -> Bool {
        identity == other.identity
    }

    /// `name` with ASCII capitals lowered, other bytes untouched.
    private static func asciiLowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
