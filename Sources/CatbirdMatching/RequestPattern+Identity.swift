import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// What makes two patterns "the same" for `update` and `remove`
    /// (docs/matching.md#update-replaces-in-place): the method (exact), the url pattern
    /// (``PatternIdentity``: the kind, and the value as the kind matches: `equal` by canonical
    /// equivalence, `regexp` and `wildcard` exactly), the header patterns likewise with their
    /// names lowercased (ASCII, as header matching compares them), and the body pattern
    /// (``BodyIdentity``: a `json` value compared as JSON, as the `json` matcher compares, any
    /// other exactly). Hashable, so it can key a dictionary of mocks.
    public struct Identity: Hashable, Sendable {
        /// The method, exactly as in the pattern.
        public let method: String
        /// The url pattern.
        public let url: PatternIdentity
        /// Lowercased header name → the patterns given under every spelling of that name,
        /// sorted (a pattern may list `X-Token` and `x-token` both; matching checks each).
        public let headers: [String: [PatternIdentity]]
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
    /// patterns whose values are equal JSON (``ExactJSON`` equality, the `json` matcher's: key
    /// order and whitespace ignored, numbers as 64-bit floats, so `1` equals `1.0`, strings and
    /// keys exactly) match exactly the same bodies, so they are the same; any other body pattern
    /// is compared by kind, value and `equalTo` (as the `jsonPath` matcher compares it), and so
    /// is a `json` value that is not JSON (a `remove` is not validated). Values are compared
    /// exactly, Unicode scalar by scalar, as every body kind reads them (bytes for `equal` and
    /// `contains`, ICU for `regexp`, member names byte for byte for `jsonPath`): canonically
    /// equivalent values are different patterns (tester21a-F6).
    public enum BodyIdentity: Hashable, Sendable {
        /// A `json` pattern: its value as read by the matcher.
        case json(ExactJSON)
        /// Any other body pattern: its kind, value and `equalTo`.
        case exact(kind: BodyPattern.Kind, value: ExactString, equalTo: ExactJSON?)

        /// `pattern`'s identity, its `json` value read as `read` is (nil: not JSON, compared as text).
        init(_ pattern: BodyPattern, json read: () -> ExactJSON?) {
            if pattern.kind == .json, let value = read() {
                self = .json(value)
            } else {
                self = .exact(kind: pattern.kind, value: ExactString(pattern.value), equalTo: pattern.equalTo.map(ExactJSON.init))
            }
        }
    }

    /// This pattern's ``Identity``, as `remove` compares it with the stored mocks'. A `json` body
    /// value that `update` would take (RFC 8259 JSON naming no key twice: ``JSONTextCheck``) is
    /// read as a stored mock's is (``JSONBodyParser/storedPatternValue(of:)``), so that it
    /// compares with every stored mock as their matchers would; any other is compared as text,
    /// as docs/matching.md#update-replaces-in-place says (tester finding tester28a-F5: a `remove`
    /// with `{"a":1,}` or `{"a":1,"a":2}`, read leniently, removed the mock of `{"a":1}`).
    public var identity: Identity {
        identity(body: body.map { pattern in
            BodyIdentity(pattern) {
                let bytes = Array(pattern.value.utf8)
                let findings = JSONTextCheck.scan(bytes, as: .value)
                guard findings.syntaxError == nil, findings.duplicateKey == nil else { return nil }
                return JSONBodyParser.storedPatternValue(of: bytes)
            }
        })
    }

    /// This pattern's ``Identity`` with `body` as its body's.
    func identity(body: BodyIdentity?) -> Identity {
        var grouped: [String: [PatternIdentity]] = [:]
        for (name, pattern) in headers {
            grouped[name.asciiLowercased(), default: []].append(PatternIdentity(pattern))
        }
        return Identity(
            method: method.rawValue, url: PatternIdentity(url),
            headers: grouped.mapValues { patterns in patterns.sorted { $0.precedes($1) } }, body: body)
    }

    /// Whether `other` is the same pattern as this one for `update` (replace in place) and
    /// `remove`: same method, url and body pattern (a `json` value compared as JSON), and the
    /// same header patterns with header names compared case-insensitively (ASCII).
    /// `{"X-Token": equal "abc"}` and `{"x-token": equal "abc"}` are the same; values and kinds
    /// are still compared exactly (an `equal` value by canonical equivalence, as it matches).
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
