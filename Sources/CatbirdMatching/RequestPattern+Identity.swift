import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// What makes two patterns "the same" for `update` and `remove`
    /// (docs/matching.md#update-replaces-in-place): the method (exact), the url pattern (kind
    /// and value, exact), the header patterns with their names lowercased (ASCII, as header
    /// matching compares them), and the body pattern (exact). Hashable, so it can key a dictionary of mocks.
    public struct Identity: Hashable, Sendable {
        /// The method, exactly as in the pattern.
        public let method: String
        /// The url pattern, exactly as in the pattern.
        public let url: PatternMatch
        /// Lowercased header name → the patterns given under every spelling of that name,
        /// sorted (a pattern may list `X-Token` and `x-token` both; matching checks each).
        public let headers: [String: [PatternMatch]]
        /// The body pattern, exactly as in the pattern (nil when none).
        public let body: BodyPattern?
    }

    /// This pattern's ``Identity``.
    public var identity: Identity {
        var grouped: [String: [PatternMatch]] = [:]
        for (name, pattern) in headers {
            grouped[name.asciiLowercased(), default: []].append(pattern)
        }
        return Identity(
            method: method.rawValue, url: url,
            headers: grouped.mapValues { patterns in
                patterns.sorted { ($0.kind.rawValue, $0.value) < ($1.kind.rawValue, $1.value) }
            }, body: body)
    }

    /// Whether `other` is the same pattern as this one for `update` (replace in place) and
    /// `remove`: same method, url and body pattern, and the same header patterns with header names
    /// compared case-insensitively (ASCII). `{"X-Token": equal "abc"}` and
    /// `{"x-token": equal "abc"}` are the same; values and kinds are still compared exactly.
    public func isSamePattern(as other: RequestPattern) -> Bool {
        identity == other.identity
    }
}
