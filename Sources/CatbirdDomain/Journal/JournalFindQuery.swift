import Foundation

/// Which matching journal entries `POST /catbird/api/requests/find` answers: one page, oldest
/// first, within id and time bounds (docs/protocol.md#find).
public struct JournalFindQuery: Sendable {
    /// Only entries with an id greater than this (the previous page's `nextSince`).
    public var since: Int64?
    /// Only entries with an id less than this.
    public var before: Int64?
    /// Only entries answered at or after this time (millisecond precision).
    public var from: Date?
    /// Only entries answered before this time (millisecond precision).
    public var until: Date?
    /// Page size: at most this many entries (1...``JournalQuery/maxLimit``).
    public var limit: Int
    /// Whether entries carry their bodies (sizes are always there).
    public var includeBodies: Bool

    public init(
        since: Int64? = nil, before: Int64? = nil, from: Date? = nil, until: Date? = nil,
        limit: Int = JournalQuery.defaultLimit, includeBodies: Bool = true
    ) {
        self.since = since
        self.before = before
        self.from = from
        self.until = until
        self.limit = min(max(limit, 1), JournalQuery.maxLimit)
        self.includeBodies = includeBodies
    }
}
