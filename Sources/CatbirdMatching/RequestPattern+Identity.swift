import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// What makes two patterns "the same" for `update` and `remove`
    /// (docs/matching.md#update-replaces-in-place): the method (exact), the url pattern (kind
    /// and value, exact), the header patterns with their names lowercased (ASCII, as header
    /// matching compares them), and the body pattern (``BodyIdentity``: a `json` value compared
    /// as JSON, as the `json` matcher compares). Hashable, so it can key a dictionary of mocks.
    public struct Identity: Hashable, Sendable {
        /// The method, exactly as in the pattern.
        public let method: String
        /// The url pattern, exactly as in the pattern.
        public let url: PatternMatch
        /// Lowercased header name → the patterns given under every spelling of that name,
        /// sorted (a pattern may list `X-Token` and `x-token` both; matching checks each).
        public let headers: [String: [PatternMatch]]
        /// The body pattern as `update` and `remove` compare it (nil when none).
        public let body: BodyIdentity?

        /// The identity of a pattern of `method` and `url` without header or body patterns: a
        /// mock with it answers every request that a mock of the same method and url with
        /// header or body patterns could match (the earlier mock an `update` warns of, T18A-F9).
        public var withoutHeadersOrBody: Identity {
            Identity(method: method, url: url, headers: [:], body: nil)
        }
    }

    /// A body pattern as `update` and `remove` compare it (tester finding T18A-F9): two `json`
    /// patterns whose values are equal JSON (``CatbirdWire/JSONValue`` equality, the `json`
    /// matcher's: key order and whitespace ignored, numbers as 64-bit floats, so `1` equals
    /// `1.0`) match exactly the same bodies, so they are the same; any other body pattern is
    /// compared by kind, value and `equalTo` (a ``CatbirdWire/JSONValue``, so compared as JSON
    /// too), and so is a `json` value that is not JSON (a `remove` is not validated).
    public enum BodyIdentity: Hashable, Sendable {
        /// A `json` pattern: its value as read by the matcher.
        case json(JSONValue)
        /// Any other body pattern, as given.
        case exact(BodyPattern)

        /// `pattern`'s identity, its `json` value read as `read` is (nil: not JSON, compared as text).
        init(_ pattern: BodyPattern, json read: () -> JSONValue?) {
            if pattern.kind == .json, let value = read() {
                self = .json(value)
            } else {
                self = .exact(pattern)
            }
        }
    }

    /// This pattern's ``Identity``. A `json` body value is read here as a stored mock's is
    /// (``JSONBodyParser/storedPatternValue(of:)``), so that a pattern compares with every
    /// stored mock as their matchers would.
    public var identity: Identity {
        identity(body: body.map { pattern in
            BodyIdentity(pattern) { JSONBodyParser.storedPatternValue(of: Array(pattern.value.utf8)) }
        })
    }

    /// This pattern's ``Identity`` with `body` as its body's.
    func identity(body: BodyIdentity?) -> Identity {
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
    /// `remove`: same method, url and body pattern (a `json` value compared as JSON), and the
    /// same header patterns with header names compared case-insensitively (ASCII).
    /// `{"X-Token": equal "abc"}` and `{"x-token": equal "abc"}` are the same; values and kinds
    /// are still compared exactly.
    public func isSamePattern(as other: RequestPattern) -> Bool {
        identity == other.identity
    }
}

extension CompiledRequestPattern {
    /// ``CatbirdWire/RequestPattern/identity`` of ``source``, its `json` body value taken from
    /// the compiled body pattern rather than read again.
    public var identity: RequestPattern.Identity {
        source.identity(body: source.body.map { pattern in
            RequestPattern.BodyIdentity(pattern) { body?.jsonPatternValue }
        })
    }
}
