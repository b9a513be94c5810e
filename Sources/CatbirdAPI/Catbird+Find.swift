@_spi(Server) import CatbirdWire
import CatbirdSupport
import Foundation

extension Catbird {
    /// One page of the caller's tenant's journaled requests that match `pattern`, oldest first
    /// (`POST /catbird/api/requests/find`; docs/protocol.md#find). Matching follows the mocks'
    /// rules, body matchers included (``BodyPattern``): find the login requests whose JSON
    /// body has `"login": "john"` with
    /// `RequestPattern(method: .POST, url: "/login", body: .jsonPath("$.login", equalTo: "john"))`.
    ///
    /// - Parameters:
    ///   - pattern: the requests to find.
    ///   - since: only entries after this entry id (a page's ``CatbirdRequestPage/nextSince``).
    ///   - from: only requests answered at or after this time (millisecond precision).
    ///   - until: only requests answered before this time.
    ///   - limit: the page size, 1–1000; nil for the server's default (100).
    /// - Returns: the page (at most 4 MiB of JSON: it may stop before `limit` with
    ///   ``CatbirdRequestPage/sizeLimited``); read on while ``CatbirdRequestPage/hasMore``.
    /// - Throws: ``CatbirdError`` (400 for an invalid pattern or bound, or a pattern too slow
    ///   to match within 2 seconds), `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @_disfavoredOverload
    public func find(
        matching pattern: RequestPattern, since: Int64? = nil, from: Date? = nil, until: Date? = nil, limit: Int? = nil
    ) throws -> CatbirdRequestPage {
        try perform(APICall.find(pattern, since: since, from: from, until: until, limit: limit))
    }

    /// One page of the caller's tenant's journaled requests that match `pattern`; see the
    /// synchronous form.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func find(
        matching pattern: RequestPattern, since: Int64? = nil, from: Date? = nil, until: Date? = nil, limit: Int? = nil
    ) async throws -> CatbirdRequestPage {
        try await perform(APICall.find(pattern, since: since, from: from, until: until, limit: limit))
    }
}

extension APICall where Output == CatbirdRequestPage {
    /// `POST /catbird/api/requests/find` with `{"pattern": …, "since", "from", "until", "limit"}`.
    static func find(_ pattern: RequestPattern, since: Int64?, from: Date?, until: Date?, limit: Int?) -> APICall {
        // A pattern holds strings and finite JSON numbers only, which JSONEncoder always encodes.
        let body = CatbirdJSON.encodeKnownEncodable(CatbirdFindRequest(
            pattern: pattern, since: since, from: from.map(Timestamp.string(from:)), until: until.map(Timestamp.string(from:)),
            limit: limit))
        return .json("POST", ["catbird", "api", "requests", "find"], body: body) { (page: CatbirdRequestPage) in page }
    }
}
