import Foundation

extension Catbird {
    /// The caller's tenant's requests that nothing answered (the 404s), oldest first, each with
    /// its ``CatbirdRequest/nearMisses``: the closest mocks and the fields that differed
    /// (`GET /catbird/api/requests/unmatched`; docs/matching.md#near-misses). Without a `limit`,
    /// every one after `since`, read page by page (up to 10,000 entries or 16 pages of at most
    /// 4 MiB, then ``CatbirdRequestPage/hasMore`` is true), so `requests.count` counts them all;
    /// with a `limit`, one page of at most that many.
    ///
    /// - Parameters:
    ///   - since: only entries after this entry id (a page's ``CatbirdRequestPage/nextSince``).
    ///   - limit: the size of the one page to read, 1–1000; nil to read them all (bounded as
    ///     above).
    /// - Returns: the requests, as one page (with a `limit`, at most 4 MiB of JSON: it may stop
    ///   before `limit` with ``CatbirdRequestPage/sizeLimited``); read on from its
    ///   ``CatbirdRequestPage/nextSince`` while ``CatbirdRequestPage/hasMore``.
    /// - Throws: ``CatbirdError`` (400 for a limit outside 1–1000), `URLError` on a transport
    ///   failure, ``CatbirdError`` for an unreadable answer.
    @_disfavoredOverload
    public func unmatched(since: Int64? = nil, limit: Int? = nil) throws -> CatbirdRequestPage {
        let parallelId = parallelId
        return try MatchPages.read(since: since, limit: limit, { APICall.unmatched(since: $0, limit: $1, newestFirst: false) }) {
            try perform($0, parallelId: parallelId)
        }
    }

    /// The caller's tenant's requests that nothing answered (all of them, bounded, without a
    /// `limit`; one page with one); see the synchronous form.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func unmatched(since: Int64? = nil, limit: Int? = nil) async throws -> CatbirdRequestPage {
        let parallelId = parallelId
        return try await MatchPages.read(since: since, limit: limit, { APICall.unmatched(since: $0, limit: $1, newestFirst: false) }) {
            try await perform($0, parallelId: parallelId)
        }
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
