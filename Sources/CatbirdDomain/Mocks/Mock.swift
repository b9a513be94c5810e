import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation

/// One dynamic mock (stub): a request pattern and the response served when it matches.
///
/// A value whose only mutable parts are its hits and remaining limit; everything fixed when the
/// mock was added lives in one shared ``Definition``, so the copies serving makes on every
/// request (table lookup, current usage, ``MockHit``) retain one object rather than each string
/// and array of the mock.
public struct Mock: Sendable {
    /// What is fixed when a mock is added, worked out once and shared by every copy.
    ///
    /// Sendable: final, and every stored property is an immutable Sendable value.
    final class Definition: Sendable {
        let tenant: TenantID
        let position: Int64
        let pattern: CompiledRequestPattern
        /// The response as sent by the client, its body left out: ``responseBody`` holds it, once
        /// (kept in both, a mock's body took twice its size in memory; tester finding
        /// tester50c-F4: 180 MiB of bodies made 378 MB resident). Whether it had one: ``hasBody``.
        let response: ResponseMock
        let hasBody: Bool
        let responseHeaderFields: [(name: String, value: String)]
        let responseBody: [UInt8]
        /// The response body's bytes and the pattern's (``CatbirdMatching/RequestPattern/heldBytes``):
        /// what the mock counts against its tenant's ``TenantMockLimits/maxBytes``.
        let heldBytes: Int
        let responseHeadersJSON: String
        let sentHeadersJSON = JSONText.AppendingMemo()
        let createdAt: String
        let identity: RequestPattern.Identity

        init(
            tenant: TenantID, position: Int64, pattern: CompiledRequestPattern, response: ResponseMock, responseBody: [UInt8]?,
            createdAt: String
        ) {
            self.tenant = tenant
            self.position = position
            self.pattern = pattern
            var bodiless = response
            bodiless.body = nil
            self.response = bodiless
            hasBody = response.body != nil
            responseHeaderFields = response.headers
                .filter { !$0.key.equalsIgnoringASCIICase("Content-Length") }
                .sorted { $0.key < $1.key }
                .map { (name: $0.key, value: $0.value) }
            responseHeadersJSON = JSONText.object(responseHeaderFields)
            self.responseBody = responseBody ?? response.body.map { [UInt8]($0) } ?? []
            heldBytes = self.responseBody.count + pattern.source.heldBytes
            self.createdAt = createdAt
            identity = pattern.identity
        }

        /// ``CompiledRequestPattern/evaluate(method:target:headerValue:body:until:slice:)`` of
        /// `pattern`, read in place: called from outside as `definition.pattern.evaluate`, the
        /// compiled pattern was copied (a retain and a release of each of its parts) on every
        /// request matched.
        func evaluate(
            method: String, target: String, headerValue: (String) -> String?, body: [UInt8],
            until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole
        ) -> MatchOutcome {
            pattern.evaluate(method: method, target: target, headerValue: headerValue, body: body, until: deadline, slice: slice)
        }

        /// ``CompiledRequestPattern/isMarkedSlow`` of `pattern`, read in place.
        var isMarkedSlow: Bool { pattern.isMarkedSlow }

        /// ``CompiledRequestPattern/matchingWeight`` of `pattern`, read in place.
        var matchingWeight: Int { pattern.matchingWeight }

        /// ``CompiledRequestPattern/claimSlowProbe()`` of `pattern`, read in place.
        func claimSlowProbe() -> Bool { pattern.claimSlowProbe() }

        /// ``CompiledRequestPattern/takeSlowProbe()`` of `pattern`, read in place.
        func takeSlowProbe() -> Bool { pattern.takeSlowProbe() }

        /// ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``
        /// of `pattern`, read in place (as ``evaluate(method:target:headerValue:body:until:slice:)``):
        /// for each mock a 404 compares field by field.
        func compare(
            _ probe: NearMissProbe, headerValue: (String) -> String?, body: [UInt8], urlMatches: Bool, urlEdits: Int? = nil,
            until deadline: ContinuousClock.Instant, slice: RegexpSlice, fields: Bool
        ) -> RequestComparison {
            pattern.compare(
                probe, headerValue: headerValue, body: body, urlMatches: urlMatches, urlEdits: urlEdits, until: deadline,
                slice: slice, fields: fields)
        }

        /// ``CompiledRequestPattern/fieldsWithoutComparing(distance:_:urlMatches:)`` of `pattern`,
        /// read in place: a 404's closest mock's ranking comparison with its fields.
        func fieldsWithoutComparing(distance: Double, _ probe: NearMissProbe, urlMatches: Bool) -> RequestComparison? {
            pattern.fieldsWithoutComparing(distance: distance, probe, urlMatches: urlMatches)
        }

        /// `pattern`'s near-miss texts and source, read in place (for a 404's closest mocks).
        var nearMissTexts: NearMissTexts { pattern.nearMissTexts }
        var patternSource: RequestPattern { pattern.source }

        /// ``CompiledRequestPattern/urlOutcome(_:until:slice:)`` of `pattern`, read in place.
        func urlOutcome(_ probe: NearMissProbe, until deadline: ContinuousClock.Instant, slice: RegexpSlice) -> MatchOutcome {
            pattern.urlOutcome(probe, until: deadline, slice: slice)
        }
    }

    /// Row id in the `mocks` table. A mock replaced in place gets a new id.
    public let id: Int64
    /// The parts fixed when the mock was added (shared by every copy of this mock).
    let definition: Definition
    /// Responses left before the mock disappears; nil = unlimited.
    public internal(set) var remainingLimit: Int?
    /// Responses served so far.
    public internal(set) var hits: Int
    /// The `limit` the mock was added with (`<= 0` counted as 1); nil = unlimited. The `mocks`
    /// table keeps only what remains (`remaining_limit`), so a mock loaded at start-up has
    /// `response.limit` = what remained then; but every hit, give-back and stored hit changes
    /// ``hits`` and ``remainingLimit`` together (docs/protocol.md#delays: `remainingLimit` =
    /// `limit` − the answers sent), so their sum is the limit it was added with, in the process
    /// that added it and after a restart alike (tester finding T12-F10).
    public var addedLimit: Int? { remainingLimit.map { $0 + hits } }

    /// The tenant whose table holds this mock.
    public var tenant: TenantID { definition.tenant }
    /// Sort key within the tenant's table: lower positions are tried first.
    public var position: Int64 { definition.position }
    /// The request pattern, compiled when the mock was added. A copy (a retain and a release of
    /// each of its parts): read one part through ``patternURL`` or ``patternMethod`` instead.
    public var pattern: CompiledRequestPattern { definition.pattern }
    /// `pattern.source.url`, read in place (no copy of the compiled pattern): a 404's hints read
    /// it for each near miss (``CompiledRequestPattern`` copied there cost about 1,300
    /// instructions a read, counted with callgrind).
    public var patternURL: PatternMatch { definition.pattern.source.url }
    /// `pattern.source.method.rawValue`, read in place (as ``patternURL``).
    public var patternMethod: String { definition.pattern.source.method.rawValue }
    /// `pattern.body`, read in place (as ``patternURL``): a 404 asks each of its closest mocks.
    public var patternBody: CompiledBodyPattern? { definition.pattern.body }
    /// The response to serve, as sent by the client (`delay` in whole seconds); its body a copy
    /// of ``responseBody`` made for the caller (the mock holds its body once). Serving reads
    /// ``responseBody`` and ``responseHeaderFields`` instead.
    public var response: ResponseMock {
        var response = definition.response
        if definition.hasBody { response.body = Data(definition.responseBody) }
        return response
    }
    /// ``response`` without its body (`body` nil), made without copying it.
    public var responseWithoutBody: ResponseMock { definition.response }
    /// Whether the response waits before it is sent (a `delay` above 0 seconds): its hits are
    /// refundable until the delay ends (``MockHit/isRefundable``; docs/protocol.md#delays).
    public var isDelayed: Bool { (definition.response.delay ?? 0) > 0 }
    /// `response.status`, read in place (``response`` copies the body).
    public var responseStatus: Int { definition.response.status }
    /// `response.delay` in whole seconds, read in place (``response`` copies the body).
    public var responseDelay: Int? { definition.response.delay }
    /// `response.headers` as header fields sorted by name, worked out once when the mock is
    /// added (serving and journaling a hit need them on every request). Sorted so that the
    /// header order sent and the journal's JSON do not depend on the dictionary's hash seed.
    /// Without `Content-Length` (the server sends the body's length itself; a mock may only
    /// set that same value, docs/protocol.md#what-the-journal-records).
    public var responseHeaderFields: [(name: String, value: String)] { definition.responseHeaderFields }
    /// `response.body` as bytes (empty for none), once: what every hit sends.
    public var responseBody: [UInt8] { definition.responseBody }
    /// The bytes of the response body and of the pattern's texts together: what the mock
    /// counts against ``TenantMockLimits/maxBytes`` (docs/protocol.md#mock-limits).
    public var heldBytes: Int { definition.heldBytes }
    /// `response.headers` as the journal's JSON object (``JSONText/object(_:)``), once.
    public var responseHeadersJSON: String { definition.responseHeadersJSON }
    /// ``responseHeadersJSON`` with the fields added when sent, as last journaled (shared by
    /// the copies of this mock; the hits of one second reuse it).
    public var sentHeadersJSON: JSONText.AppendingMemo { definition.sentHeadersJSON }
    /// When the mock was added (UTC, ISO 8601 with milliseconds).
    public var createdAt: String { definition.createdAt }
    /// `pattern.identity` (``CatbirdMatching/CompiledRequestPattern/identity``), worked out once: the key ``MockTable`` finds the mock by
    /// for `update` and `remove`.
    var identity: RequestPattern.Identity { definition.identity }

    /// `responseBody`: `response.body`'s bytes when the caller has them already (nil: copied
    /// from it here), so that an update copies a large body before it takes the write connection.
    init(
        id: Int64, tenant: TenantID, position: Int64, pattern: CompiledRequestPattern, response: ResponseMock,
        responseBody: [UInt8]? = nil, remainingLimit: Int?, hits: Int, createdAt: String
    ) {
        self.id = id
        definition = Definition(
            tenant: tenant, position: position, pattern: pattern, response: response, responseBody: responseBody,
            createdAt: createdAt)
        self.remainingLimit = remainingLimit
        self.hits = hits
    }
}

/// The outcome of serving a request from a mock.
public struct MockHit: Sendable {
    /// The mock as it stands after this hit (hits and remaining limit updated).
    public let mock: Mock
    /// Whether the hit can be given back (``MockStore/refund(_:)``) until it is settled
    /// (``MockStore/settle(_:)``): a delayed mock's (``Mock/isDelayed``), or one its caller asked
    /// to be refundable. Decided once, when the hit is counted; ``MockStore/refund(_:)`` and
    /// ``MockStore/settle(_:)`` do nothing with a hit that is not (it stood when counted).
    public let isRefundable: Bool
}
