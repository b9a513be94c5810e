@_spi(Server) import CatbirdWire
import CatbirdSupport
import Foundation

extension Catbird {
    /// The caller's tenant's journaled requests that match `pattern`, oldest first
    /// (`POST /catbird/api/requests/find`; docs/protocol.md#find): without a `limit`, every
    /// match after `since`, read page by page (up to 10,000 entries or 16 pages of at most
    /// 4 MiB, then ``CatbirdRequestPage/hasMore`` is true: read on from
    /// ``CatbirdRequestPage/nextSince``), so `requests.count` counts them all; with a `limit`,
    /// one page of at most that many. Matching follows the mocks'
    /// rules, body matchers included (``BodyPattern``): find the login requests whose JSON
    /// body has `"login": "john"` with
    /// `RequestPattern(method: .POST, url: "/login", body: .jsonPath("$.login", equalTo: "john"))`.
    ///
    /// - Parameters:
    ///   - pattern: the requests to find.
    ///   - since: only entries after this entry id (a page's ``CatbirdRequestPage/nextSince``).
    ///   - from: only requests that arrived at or after this time (their `time`, ``CatbirdRequest/time``; millisecond
    ///     precision): a delayed mock's request counts from its arrival, not from its answer.
    ///   - until: only requests that arrived before this time.
    ///   - limit: the size of the one page to read, 1–1000; nil to read every match (bounded
    ///     as above).
    /// - Returns: the matches, as one page (with a `limit`, at most 4 MiB of JSON: it may stop
    ///   before `limit` with ``CatbirdRequestPage/sizeLimited``); read on while
    ///   ``CatbirdRequestPage/hasMore``.
    /// - Throws: ``CatbirdError`` (400 for an invalid pattern or bound, or a pattern too slow
    ///   to match within 2 seconds), `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @_disfavoredOverload
    public func find(
        matching pattern: RequestPattern, since: Int64? = nil, from: Date? = nil, until: Date? = nil, limit: Int? = nil
    ) throws -> CatbirdRequestPage {
        let parallelId = parallelId
        return try MatchPages.read(since: since, limit: limit, { APICall.find(pattern, since: $0, from: from, until: until, limit: $1) }) {
            try perform($0, parallelId: parallelId)
        }
    }

    /// The caller's tenant's journaled requests that match `pattern` (every match, bounded,
    /// without a `limit`; one page with one); see the synchronous form.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func find(
        matching pattern: RequestPattern, since: Int64? = nil, from: Date? = nil, until: Date? = nil, limit: Int? = nil
    ) async throws -> CatbirdRequestPage {
        let parallelId = parallelId
        return try await MatchPages.read(since: since, limit: limit, { APICall.find(pattern, since: $0, from: from, until: until, limit: $1) }) {
            try await perform($0, parallelId: parallelId)
        }
    }
}

extension APICall where Output == CatbirdRequestPage {
    /// `POST /catbird/api/requests/find` with `{"pattern": …, "since", "from", "until", "limit"}`.
    static func find(_ pattern: RequestPattern, since: Int64?, from: Date?, until: Date?, limit: Int?) -> APICall {
        // A pattern holds strings and finite JSON numbers only, which JSONEncoder always encodes.
        let body = CatbirdJSON.encodeKnownEncodable(CatbirdFindRequest(
            pattern: pattern, since: since, from: from.map(Timestamp.string(from:)), until: until.map(Timestamp.string(from:)),
            limit: limit))
        return APICall.json("POST", ["catbird", "api", "requests", "find"], body: body) { (page: CatbirdRequestPage) in page }
            .refused(APICall.refusal(of: pattern))
    }
}
