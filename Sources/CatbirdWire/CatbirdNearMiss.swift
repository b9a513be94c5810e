import CatbirdSupport
import Foundation

/// A mock that came close to answering a request nothing answered: how far it was, and each
/// field of its pattern beside the request's value (docs/matching.md#near-misses).
///
/// Wire shape: `{"mockId": 7, "tenant": "shard-1", "position": 1, "distance": 0.4,
/// "pattern": RequestPattern, "fields": [Field…]}`. Found in the 404 body an unmatched request
/// gets, in its journal entry (``CatbirdRequest/nearMisses``) and in
/// `GET /catbird/api/requests/unmatched`.
public struct CatbirdNearMiss: Codable, Hashable, Sendable {
    /// One field of the pattern compared with the request.
    ///
    /// Wire shape (`verdict`: `match`, `differs`, `missing` or `skipped`): `{"field": "url", "verdict": "differs", "expected": "equal \"/api/users\"",
    /// "actual": "/api/usres"}`; `name` for a header; `actual` absent when the request has no
    /// such header.
    public struct Field: Codable, Hashable, Sendable {
        /// How the request's value compares with the pattern.
        public enum Verdict: String, Codable, Hashable, Sendable {
            /// The value matches the pattern.
            case match
            /// The value does not match the pattern.
            case differs
            /// The request has no such header.
            case missing
            /// Not evaluated: the field's regular expression ran out of the request's evaluation
            /// budget, so whether the value matches is not known (docs/matching.md#evaluation-budget;
            /// it used to show as `differs`, which told the author the expression was wrong).
            case skipped
        }

        /// `method`, `url`, `header` or `body`.
        public var field: String
        /// The header's name as the pattern spells it; nil for the other fields.
        public var name: String?
        /// How the request's value compares with the pattern.
        public var verdict: Verdict
        /// The pattern, for a person: `GET`, `equal "/api/users"`, `jsonPath "$.id" equalTo 7`.
        public var expected: String
        /// The request's value (a body as text, cut after 200 bytes, or `<N bytes, not
        /// UTF-8>`; a url or header value whole, which ``summary`` cuts after 200 bytes); nil
        /// for a missing header.
        public var actual: String?

        /// A field comparison (the server builds these).
        public init(field: String, name: String? = nil, verdict: Verdict, expected: String, actual: String?) {
            self.field = field
            self.name = name
            self.verdict = verdict
            self.expected = expected
            self.actual = actual
        }

        /// `url`, or `header X-Token`.
        public var label: String { name.map { "\(field) \($0)" } ?? field }
    }

    /// The mock's id.
    public var mockId: Int64
    /// The tenant whose list holds the mock (`""` for the default tenant).
    public var tenant: String
    /// The mock's position in its tenant's list.
    public var position: Int64
    /// How far the request is from the mock's pattern (0 would be a match; lower is closer;
    /// docs/matching.md#near-misses).
    public var distance: Double
    /// The mock's request pattern.
    public var pattern: RequestPattern
    /// The pattern's fields beside the request's values: method, url, each header, the body;
    /// at most 20 (those that did not match first), the others counted in ``omittedFields``.
    public var fields: [Field]
    /// How many of the pattern's header and body fields ``fields`` leaves out (a pattern with
    /// more than 18 of them); nil when none is. ``pattern`` then holds only the headers listed.
    public var omittedFields: Int?

    /// A near miss (the server builds these).
    public init(
        mockId: Int64, tenant: String, position: Int64, distance: Double, pattern: RequestPattern, fields: [Field],
        omittedFields: Int? = nil
    ) {
        self.mockId = mockId
        self.tenant = tenant
        self.position = position
        self.distance = distance
        self.pattern = pattern
        self.fields = fields
        self.omittedFields = omittedFields
    }

    /// The fields that did not match.
    public var mismatches: [Field] { fields.filter { $0.verdict != .match } }

    /// One line: `mock 7 (POST equal "/api/users") of the default tenant: url differs (expected equal "/api/users", got "/api/usres")`.
    public var summary: String { summary(patternSummary: pattern.summary) }

    /// ``summary`` with the pattern's ``RequestPattern/summary`` given (the server writes it once
    /// per mock).
    public func summary(patternSummary: String) -> String {
        var out = ByteWriter(capacity: patternSummary.utf8.count + 160)
        writeSummary(patternSummary: patternSummary, to: &out)
        return out.text()
    }
}

/// The 404 body of a request nothing answered (docs/matching.md#near-misses):
/// `{"error": true, "reason": "…", "tenant": "…", "nearMisses": [CatbirdNearMiss…], "matchingTenants": ["…"]}`;
/// `matchingTenants` only when the request carried no parallel id and other tenants have a
/// mock that matches it.
public struct CatbirdNotFoundBody: Codable, Hashable, Sendable {
    /// Always true.
    public var error: Bool
    /// One line: the tenant, the request and the closest mock.
    public var reason: String
    /// The request's tenant (`""`: the default tenant).
    public var tenant: String
    /// The closest mocks, closest first (at most 3).
    public var nearMisses: [CatbirdNearMiss]
    /// Tenants with a mock that matches the request, when it carried no parallel id (at most 3);
    /// never on a server with an admin token, which names no other tenant (docs/tenancy.md#ids-in-messages).
    public var matchingTenants: [String]?

    /// A 404 body (the server builds these).
    public init(reason: String, tenant: String, nearMisses: [CatbirdNearMiss], matchingTenants: [String]?) {
        error = true
        self.reason = reason
        self.tenant = tenant
        self.nearMisses = nearMisses
        self.matchingTenants = matchingTenants
    }
}
