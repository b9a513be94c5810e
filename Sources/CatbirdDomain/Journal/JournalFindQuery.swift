import Foundation

/// Which matching journal entries `POST /catbird/api/requests/find` answers: one page, oldest
/// (or newest) first, within id and time bounds (docs/protocol.md#find).
public struct JournalFindQuery: Sendable {
    /// The page's id bounds, size, order and bodies, as the listing's: `since`, `before`,
    /// `limit` (1...``JournalQuery/maxLimit``), `newestFirst` and `includeBodies`. Its filters
    /// are not used: the pattern selects.
    public var page: JournalQuery
    /// Only entries whose time is at or after this one, a whole millisecond (a finer time is
    /// rounded up to the next one by the caller, ``Timestamp/millisecondsRoundedUp(from:)``, so
    /// that the comparison with journal times, whole milliseconds, is exact).
    public var from: Date?
    /// Only entries whose time is before this one, a whole millisecond (rounded up as `from`).
    public var until: Date?

    public init(page: JournalQuery = JournalQuery(), from: Date? = nil, until: Date? = nil) {
        self.page = page
        self.from = from
        self.until = until
    }
}
