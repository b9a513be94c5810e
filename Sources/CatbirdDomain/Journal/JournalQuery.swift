/// Which journal entries to list: one tenant's, oldest first, in pages.
public struct JournalQuery: Sendable {
    /// Only entries with an id greater than this (the previous page's last id); nil = from the start.
    public var since: Int64?
    /// Page size: at most this many entries (1...1000).
    public var limit: Int
    /// Only this method (exact).
    public var method: String?
    /// Only urls containing this text (case-sensitive substring).
    public var urlContains: String?
    /// Only this response status.
    public var status: Int?
    /// Only entries answered this way.
    public var answeredBy: AnsweredBy?

    /// The page size used when none is given.
    public static let defaultLimit = 100
    /// The largest page size accepted.
    public static let maxLimit = 1000

    public init(
        since: Int64? = nil, limit: Int = JournalQuery.defaultLimit, method: String? = nil,
        urlContains: String? = nil, status: Int? = nil, answeredBy: AnsweredBy? = nil
    ) {
        self.since = since
        self.limit = min(max(limit, 1), JournalQuery.maxLimit)
        self.method = method
        self.urlContains = urlContains
        self.status = status
        self.answeredBy = answeredBy
    }
}

/// One page of the journal.
public struct JournalPage: Sendable, Codable {
    /// The entries, oldest first.
    public var requests: [JournalRecord]
    /// Whether more entries follow; pass ``nextSince`` as `since` to get them.
    public var hasMore: Bool
    /// The id of the last entry of this page; when the page is empty, the `since` given, or 0
    /// without one. Always present, so it can be passed back as `since` as is.
    public var nextSince: Int64
}
