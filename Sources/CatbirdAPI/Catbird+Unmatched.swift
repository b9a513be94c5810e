import Foundation

extension Catbird {
    /// One page of the caller's tenant's requests that nothing answered (the 404s), oldest
    /// first, each with its ``CatbirdRequest/nearMisses``: the closest mocks and the fields that
    /// differed (`GET /catbird/api/requests/unmatched`; docs/matching.md#near-misses).
    ///
    /// - Parameters:
    ///   - since: only entries after this entry id (a page's ``CatbirdRequestPage/nextSince``).
    ///   - limit: the page size, 1–1000; nil for the server's default (100).
    /// - Returns: the page (at most 4 MiB of JSON: it may stop before `limit` with
    ///   ``CatbirdRequestPage/sizeLimited``); read on from its ``CatbirdRequestPage/nextSince``
    ///   while ``CatbirdRequestPage/hasMore``.
    /// - Throws: ``CatbirdError`` (400 for a limit outside 1–1000), `URLError` on a transport
    ///   failure, ``CatbirdError`` for an unreadable answer.
    @_disfavoredOverload
    public func unmatched(since: Int64? = nil, limit: Int? = nil) throws -> CatbirdRequestPage {
        try perform(APICall.unmatched(since: since, limit: limit, newestFirst: false))
    }

    /// One page of the caller's tenant's requests that nothing answered; see the synchronous form.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func unmatched(since: Int64? = nil, limit: Int? = nil) async throws -> CatbirdRequestPage {
        try await perform(APICall.unmatched(since: since, limit: limit, newestFirst: false))
    }
}

extension APICall where Output == CatbirdRequestPage {
    /// `GET /catbird/api/requests/unmatched?since=&limit=&order=`.
    static func unmatched(since: Int64?, limit: Int?, newestFirst: Bool) -> APICall {
        var query: [(name: String, value: String)] = []
        if let since { query.append(("since", String(since))) }
        if let limit { query.append(("limit", String(limit))) }
        if newestFirst { query.append(("order", "newest")) }
        return .json("GET", ["catbird", "api", "requests", "unmatched"], query: query) { (page: CatbirdRequestPage) in page }
    }
}
