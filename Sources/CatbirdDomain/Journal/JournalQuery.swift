import CatbirdWire

/// Which journal entries to list: one tenant's, oldest or newest first, in pages.
public struct JournalQuery: Sendable {
    /// Only entries with an id greater than this (the previous page's last id); nil = from the start.
    public var since: Int64?
    /// Only entries with an id less than this (a newest-first page's `nextBefore`); nil = up to
    /// the newest.
    public var before: Int64?
    /// Newest first (descending id) instead of oldest first; `limit` then takes the newest.
    public var newestFirst: Bool
    /// Page size: at most this many entries (1...1000).
    public var limit: Int
    /// Only this method (exact).
    public var method: String?
    /// Only urls containing this text (case-sensitive substring).
    public var urlContains: String?
    /// Only this response status.
    public var status: Int?
    /// Only statuses of this class: 2 selects 200...299 (1...5).
    public var statusClass: Int?
    /// Whether entries carry their bodies; false leaves `body` and `bodyBase64` out (sizes
    /// stay), for listings that show summaries and fetch a body on demand.
    public var includeBodies: Bool
    /// Only entries answered this way.
    public var answeredBy: CatbirdRequest.AnsweredBy?
    /// Only requests nothing answered, which carry near misses (`GET /catbird/api/requests/unmatched`).
    public var unmatchedOnly = false

    /// Whether a filter may skip rows (method, url, status, its class, `answeredBy`, the
    /// unmatched listing's): such a page reads the tenant's entries until it has `limit` that
    /// pass, so its cost grows with the journal (docs/tenancy.md#fair-shares: the slow lane,
    /// with ``Journal/defaultCountTimeLimit``); without one it reads `limit` rows by id.
    public var filtersRows: Bool {
        method != nil || urlContains != nil || status != nil || statusClass != nil || answeredBy != nil || unmatchedOnly
    }

    /// The page size used when none is given.
    public static let defaultLimit = 100
    /// The largest page size accepted.
    public static let maxLimit = 1000

    public init(
        since: Int64? = nil, before: Int64? = nil, newestFirst: Bool = false, limit: Int = JournalQuery.defaultLimit,
        method: String? = nil, urlContains: String? = nil, status: Int? = nil, statusClass: Int? = nil,
        answeredBy: CatbirdRequest.AnsweredBy? = nil, includeBodies: Bool = true
    ) {
        self.since = since
        self.before = before
        self.newestFirst = newestFirst
        self.statusClass = statusClass
        self.includeBodies = includeBodies
        self.limit = min(max(limit, 1), JournalQuery.maxLimit)
        self.method = method
        self.urlContains = urlContains
        self.status = status
        self.answeredBy = answeredBy
    }
}
