import Foundation

extension Catbird {
    /// One page of the caller's tenant's request journal, oldest first
    /// (`GET /catbird/api/requests`). Every request whose response was sent before this call
    /// is in the journal.
    ///
    /// To read on, pass the page's ``CatbirdRequestPage/nextSince`` as `since` while
    /// ``CatbirdRequestPage/hasMore`` is true, or use `allRequests(method:url:status:answeredBy:)`.
    ///
    /// - Parameters:
    ///   - since: only entries after this entry id; nil for the start of the journal.
    ///   - limit: the page size, 1–1000; nil for the server's default (100).
    ///   - method: only requests with this method.
    ///   - url: only requests whose URL (request-target) contains this text (case-sensitive).
    ///   - status: only requests answered with this status.
    ///   - answeredBy: only requests answered this way.
    /// - Returns: the page.
    /// - Throws: ``CatbirdError`` (400 for a limit outside 1–1000), `URLError` on a transport
    ///   failure, ``CatbirdError`` for an unreadable answer.
    @_disfavoredOverload
    public func requests(
        since: Int64? = nil, limit: Int? = nil, method: RequestPattern.HTTPMethod? = nil, url: String? = nil, status: Int? = nil,
        answeredBy: CatbirdRequest.AnsweredBy? = nil
    ) throws -> CatbirdRequestPage {
        try perform(APICall.requests(JournalFilter(method: method, url: url, status: status, answeredBy: answeredBy), since: since, limit: limit))
    }

    /// One page of the caller's tenant's request journal, oldest first
    /// (`GET /catbird/api/requests`); see the synchronous form for the parameters.
    ///
    /// - Returns: the page.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation,
    ///   ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func requests(
        since: Int64? = nil, limit: Int? = nil, method: RequestPattern.HTTPMethod? = nil, url: String? = nil, status: Int? = nil,
        answeredBy: CatbirdRequest.AnsweredBy? = nil
    ) async throws -> CatbirdRequestPage {
        try await perform(APICall.requests(JournalFilter(method: method, url: url, status: status, answeredBy: answeredBy), since: since, limit: limit))
    }

    /// Every journaled request of the caller's tenant that passes the filters, oldest first,
    /// read page by page (1000 entries a page).
    ///
    /// - Parameters:
    ///   - method: only requests with this method.
    ///   - url: only requests whose URL (request-target) contains this text (case-sensitive).
    ///   - status: only requests answered with this status.
    ///   - answeredBy: only requests answered this way.
    /// - Returns: the entries.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @_disfavoredOverload
    public func allRequests(
        method: RequestPattern.HTTPMethod? = nil, url: String? = nil, status: Int? = nil, answeredBy: CatbirdRequest.AnsweredBy? = nil
    ) throws -> [CatbirdRequest] {
        let parallelId = self.parallelId
        var pages = JournalPages(JournalFilter(method: method, url: url, status: status, answeredBy: answeredBy))
        while let call = pages.nextCall { pages.add(try perform(call, parallelId: parallelId)) }
        return pages.requests
    }

    /// Every journaled request of the caller's tenant that passes the filters, oldest first,
    /// read page by page; see the synchronous form for the parameters.
    ///
    /// - Returns: the entries.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation,
    ///   ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @_disfavoredOverload
    public func allRequests(
        method: RequestPattern.HTTPMethod? = nil, url: String? = nil, status: Int? = nil, answeredBy: CatbirdRequest.AnsweredBy? = nil
    ) async throws -> [CatbirdRequest] {
        let parallelId = self.parallelId
        var pages = JournalPages(JournalFilter(method: method, url: url, status: status, answeredBy: answeredBy))
        while let call = pages.nextCall { pages.add(try await perform(call, parallelId: parallelId)) }
        return pages.requests
    }

    /// Deletes the caller's tenant's request journal (`DELETE /catbird/api/requests`). The
    /// default tenant's (no ``parallelId``) is sent with ``adminToken`` when set: a server with
    /// an admin token lets only the admin clear it (docs/tenancy.md#default-tenant).
    ///
    /// - Returns: how many entries were deleted.
    /// - Throws: ``CatbirdError`` (401 for the default tenant's journal on a server with an
    ///   admin token, without it), `URLError` on a transport failure, ``CatbirdError`` for an
    ///   unreadable answer.
    @discardableResult
    @_disfavoredOverload
    public func clearJournal() throws -> Int {
        try perform(APICall.clearJournal)
    }

    /// Deletes the caller's tenant's request journal (`DELETE /catbird/api/requests`).
    ///
    /// - Returns: how many entries were deleted.
    /// - Throws: ``CatbirdError``, `URLError` on a transport failure or cancellation,
    ///   ``CatbirdError`` for an unreadable answer.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    @discardableResult
    @_disfavoredOverload
    public func clearJournal() async throws -> Int {
        try await perform(APICall.clearJournal)
    }
}

/// The journal listing's filters.
struct JournalFilter: Sendable {
    var method: RequestPattern.HTTPMethod?
    var url: String?
    var status: Int?
    var answeredBy: CatbirdRequest.AnsweredBy?

    /// The filters as query parameters.
    var query: [(name: String, value: String)] {
        var query: [(name: String, value: String)] = []
        if let method { query.append(("method", method.rawValue)) }
        if let url { query.append(("url", url)) }
        if let status { query.append(("status", String(status))) }
        if let answeredBy { query.append(("answeredBy", answeredBy.rawValue)) }
        return query
    }
}

/// Reading every page of the journal: which call comes next, and the entries so far.
struct JournalPages {
    /// The largest page the server serves.
    static let pageSize = 1000

    let filter: JournalFilter
    private(set) var requests: [CatbirdRequest] = []
    private var since: Int64?
    private var done = false

    init(_ filter: JournalFilter) {
        self.filter = filter
    }

    /// The call for the next page; nil once the last page was added.
    var nextCall: APICall<CatbirdRequestPage>? {
        done ? nil : .requests(filter, since: since, limit: Self.pageSize)
    }

    mutating func add(_ page: CatbirdRequestPage) {
        requests += page.requests
        since = page.nextSince
        done = !page.hasMore || page.requests.isEmpty
    }
}

extension APICall where Output == CatbirdRequestPage {
    /// `GET /catbird/api/requests?since=&limit=&method=&url=&status=&answeredBy=`.
    static func requests(_ filter: JournalFilter, since: Int64?, limit: Int?) -> APICall {
        var query: [(name: String, value: String)] = []
        if let since { query.append(("since", String(since))) }
        if let limit { query.append(("limit", String(limit))) }
        return .json("GET", ["catbird", "api", "requests"], query: query + filter.query) { (page: CatbirdRequestPage) in page }
    }
}

extension APICall where Output == Int {
    /// `DELETE /catbird/api/requests` → `{"deleted": n}`; for the default tenant sent with the
    /// admin token when there is one (a server with a token refuses it otherwise, 401).
    static var clearJournal: APICall {
        var call = APICall.json("DELETE", ["catbird", "api", "requests"]) { (answer: DeletedAnswer) in answer.deleted }
        call.isAdminForDefaultTenant = true
        return call
    }
}

/// The answer of `DELETE /catbird/api/requests`.
private struct DeletedAnswer: Decodable {
    let deleted: Int
}
