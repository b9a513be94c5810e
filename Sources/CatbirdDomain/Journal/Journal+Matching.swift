import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// Matching journaled requests against a request pattern: counting them
/// (`POST /catbird/api/requests/count`) and finding the first one after an id
/// (`POST /catbird/api/requests/wait`); docs/protocol.md#count and #waiting-for-a-request.
///
/// Both run in SQLite, as one statement on one of the journal's read connections: the pattern
/// becomes SQL (``JournalPatternSQL``: the method and an equal url compared on the index) and the Swift
/// matcher, called from SQL on the row's bytes (``RequestMatchFunction``), decides the rest.
extension Journal {
    /// How long ``count(of:matching:timeLimit:)`` may match by default: 2 seconds.
    public static let defaultCountTimeLimit = Duration.seconds(2)
    /// A count over at least this many ids (from the tenant's first to its newest) is shared
    /// with a spare thread when one is free: 100,000 (below that, starting a thread costs more
    /// than it saves).
    static let countSplitSpan: Int64 = 100_000
    /// How many parts a shared count's range is cut into: 16 (a spare thread slowed by other
    /// work then delays the count by at most a sixteenth of it).
    static let countPartCount = 16
    /// How many matching ids a search reads per statement: 1000.
    public static let countChunkSize = 1000

    /// How many of the tenant's journaled requests match `pattern` (method, url, headers;
    /// Catbird 0.11 matching rules, as for mocks: a header pattern matches the first value of
    /// that header, the name compared case-insensitively).
    ///
    /// Counts the requests journaled before the call (the queued journal is written first, and
    /// the journal's highest id then bounds the count: ``JournalWriter/highestID``). Only when
    /// that id is more than ``countSplitSpan`` past the tenant's hidden ids are the tenant's
    /// own first and newest ids looked up; over a range of at least
    /// ``countSplitSpan`` ids, while one of the journal's ``countHelpers`` is free, the range is
    /// cut into ``countPartCount`` parts that the caller and that thread count side by side,
    /// each on a read connection of its own (``JournalCountParts``: the same sum, on two cores);
    /// otherwise one statement on one read connection counts it all.
    ///
    /// - Parameter timeLimit: how long counting may take, counted after the queued journal is
    ///   written; SQLite's progress handler stops the statements then, and a regular expression
    ///   the Swift matcher is still running at the deadline is stopped too
    ///   (docs/matching.md#evaluation-budget).
    /// - Throws: ``JournalCountError/tooSlow(milliseconds:search:pattern:)`` once `timeLimit` has passed;
    ///   `SQLiteError` when reading fails.
    public func count(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, timeLimit: Duration = defaultCountTimeLimit
    ) throws -> Int {
        try writer.flushForReading(tenant)
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let hidden = deletions.hiddenThrough(tenant)
        // Every visible id of the tenant is after `hidden` and at most the journal's highest.
        let highest = writer.highestID
        let condition = JournalPatternSQL(pattern.source, deadline: deadline)
        // The tenant's rows in id order through the covering (tenant, id, method, url) index.
        let sql = "SELECT count(*) FROM journal_rows WHERE tenant = ? AND id > ? AND id <= ?" + condition.conditions
        let tooSlow = Self.tooSlow(.count, pattern)
        let countPart: @Sendable (JournalCountParts.Part) throws -> Int64 = { part in
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(part.after), .integer(part.through)] + condition.bindings
            return try self.reading(until: deadline, timeLimit: timeLimit, tooSlow: tooSlow) { db in
                try db.query(sql, bindings).first?[0].intValue ?? 0
            }
        }
        // Only a journal whose ids reach past the split span may hold a range worth sharing:
        // the tenant's own ends are looked up for it alone.
        if highest - hidden > Self.countSplitSpan {
            let ends = try reading(until: deadline, timeLimit: timeLimit, tooSlow: tooSlow) { db in
                try db.query(
                    "SELECT (SELECT min(id) FROM journal_rows WHERE tenant = ?1 AND id > ?2), "
                        + "(SELECT max(id) FROM journal_rows WHERE tenant = ?1)",
                    [.text(tenant.rawValue), .integer(hidden)]
                ).first.map { ($0[0].intValue, $0[1].intValue) }
            }
            guard let ends, let first = ends.0, let newest = ends.1, newest >= first else { return 0 }
            if newest - first >= Self.countSplitSpan {
                let parts = JournalCountParts(
                    after: first - 1, through: newest, partCount: Self.countPartCount, statistics: countStatistics, countPart)
                if countHelpers.offer({ parts.help() }) { return Int(try parts.total(helped: true)) }
            }
            return Int(try countPart(JournalCountParts.Part(after: first - 1, through: newest)))
        }
        // Short, or no core to share: one statement over the whole range.
        return Int(try countPart(JournalCountParts.Part(after: hidden, through: highest)))
    }

    /// The first of the tenant's journaled requests after the entry `since` that matches
    /// `pattern` (the rules of ``count(of:matching:timeLimit:)``), with its bodies, and the id
    /// of the last entry searched: search again after it to see only what arrived since.
    /// Searches once the tenant's requests answered before the call are stored, or, with
    /// `deadline`, once it passes (the entries stored by then searched): `complete` says which.
    /// With `deadline`, what is stored already is searched first, and a match there is answered
    /// at once, without waiting for the writer: it is the first (entries still queued get
    /// later ids when they are written).
    ///
    /// - Throws: ``JournalCountError/tooSlow(milliseconds:search:pattern:)`` once `timeLimit` has passed;
    ///   ``JournalWaitError`` after ``JournalWriter/readPatience`` of failing writer rounds
    ///   before `deadline`; `SQLiteError` when reading fails.
    public func firstMatch(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, after since: Int64,
        timeLimit: Duration = defaultCountTimeLimit, flushingBefore deadline: ContinuousClock.Instant? = nil
    ) throws -> (entry: CatbirdRequest?, searchedThrough: Int64, complete: Bool) {
        var found: Int64?
        // One matching id is all it reads: a statement that read a chunk tried the pattern on
        // every later entry before the first match was answered (tester finding tester30c-F7:
        // a match in the first of 3,000 entries answered 400 "too slow" after 2 s).
        let search = { (after: Int64) throws -> Int64 in
            try self.matches(of: tenant, pattern, .wait, after: after, timeLimit: timeLimit, chunkSize: 1) { id in
                found = id
                return false
            }
        }
        var complete = true
        var after = since
        if let deadline {
            after = try search(since)
            if let found { return (try storedEntry(of: tenant, id: found), found, true) }
            complete = try writer.flushForReading(tenant, before: deadline)
        } else {
            try writer.flushForReading(tenant)
        }
        let searched = try search(after)
        guard let found else { return (nil, searched, complete) }
        return (try storedEntry(of: tenant, id: found), found, complete)
    }

    /// A page of the tenant's journaled requests that match `pattern` (the rules of
    /// ``count(of:matching:timeLimit:)``) within the query's bounds, oldest first, as JSON
    /// bounded like every journal page (``encodedPage(of:ids:_:maxSize:)``: at most `maxSize`
    /// bytes, `sizeLimited` when it stopped early; `POST /catbird/api/requests/find`,
    /// docs/protocol.md#find).
    ///
    /// - Throws: ``JournalCountError/tooSlow(milliseconds:search:pattern:)`` once `timeLimit` has passed;
    ///   `SQLiteError` when reading fails.
    public func find(
        of tenant: TenantID, matching pattern: CompiledRequestPattern, _ query: JournalFindQuery,
        timeLimit: Duration = defaultCountTimeLimit, maxSize: Int = maxPageSize
    ) throws -> EncodedJournalPage {
        try writer.flushForReading(tenant)
        var ids: [Int64] = []
        let chunkSize = min(Self.countChunkSize, query.page.limit + 1)
        try matches(
            of: tenant, pattern, .find, after: query.page.since ?? 0, timeLimit: timeLimit, chunkSize: chunkSize, bounds: query,
            newestFirst: query.page.newestFirst
        ) { id in
            ids.append(id)
            return ids.count <= query.page.limit
        }
        return try encodedPage(of: tenant, ids: ids, query.page, maxSize: maxSize)
    }

    /// The ids of the tenant's entries after `since`, up to `through`, that match `pattern` in
    /// everything but its body pattern: for one whose request body the journal kept only in part,
    /// the body pattern was tested on that prefix alone (docs/matching.md#body-matchers), which
    /// is why it may not have matched. Empty for a pattern without a body pattern.
    /// - Throws: as ``firstMatch(of:matching:after:timeLimit:)``.
    public func matchesButForBody(
        of tenant: TenantID, _ pattern: CompiledRequestPattern, after since: Int64, through: Int64,
        timeLimit: Duration = defaultCountTimeLimit
    ) throws -> Set<Int64> {
        guard through > since, let withoutBody = pattern.withoutBody else { return [] }
        var ids: Set<Int64> = []
        try matches(of: tenant, withoutBody, .wait, after: since, timeLimit: timeLimit) { id in
            guard id <= through else { return false }
            ids.insert(id)
            return true
        }
        return ids
    }

    /// Calls `visit` with the id of each of the tenant's entries after `since` that matches
    /// `pattern`, in id order (descending with `newestFirst`), up to the newest entry when the
    /// call began, until `visit` returns false. Reads `chunkSize` matching ids per statement (a
    /// statement tries the pattern on entries until it has that many, so a caller that stops
    /// early asks for few).
    /// - Parameter search: the route searching, named when it is too slow.
    /// - Returns: the id of the last entry examined (`since` when there was none).
    @discardableResult
    private func matches(
        of tenant: TenantID, _ pattern: CompiledRequestPattern, _ search: JournalSearch, after since: Int64, timeLimit: Duration,
        chunkSize: Int = countChunkSize, bounds: JournalFindQuery? = nil, newestFirst: Bool = false, _ visit: (Int64) -> Bool
    ) throws -> Int64 {
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let condition = JournalPatternSQL(pattern.source, deadline: deadline)
        let (boundSQL, boundBindings) = Self.boundConditions(bounds)
        let sql = "SELECT id FROM journal_rows WHERE tenant = ? AND id > ? AND id <= ?" + condition.conditions + boundSQL
            + (newestFirst ? " ORDER BY id DESC LIMIT ?" : " ORDER BY id LIMIT ?")
        let newest = try reader.use { db in
            try db.query("SELECT max(id) FROM journal_rows WHERE tenant = ?", [.text(tenant.rawValue)]).first?[0].intValue
        }
        guard let newest, newest > since else { return since }
        // The ids still to read: above `after`, up to `through`; each statement moves one end.
        var after = max(since, deletions.hiddenThrough(tenant))
        var through = newest
        while true {
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(after), .integer(through)] + condition.bindings + boundBindings
                + [.integer(Int64(chunkSize))]
            let ids = try reading(until: deadline, timeLimit: timeLimit, tooSlow: Self.tooSlow(search, pattern)) { db in
                try db.query(sql, bindings).map { $0[0].intValue ?? 0 }
            }
            for id in ids where !visit(id) { return id }
            guard ids.count == chunkSize, let last = ids.last else { return newestFirst ? after : newest }
            if newestFirst { through = last - 1 } else { after = last }
        }
    }

    /// A find's `before`, `from` and `until` as `AND …` terms over `journal_rows` and their
    /// values (none for nil); `since` is the caller's, as the search's start.
    static func boundConditions(_ bounds: JournalFindQuery?) -> (sql: String, bindings: [SQLiteValue]) {
        var sql = ""
        var bindings: [SQLiteValue] = []
        if let before = bounds?.page.before { sql += " AND id < ?"; bindings.append(.integer(before)) }
        if let from = bounds?.from { sql += " AND time >= ?"; bindings.append(.text(Timestamp.string(from: from))) }
        if let until = bounds?.until { sql += " AND time < ?"; bindings.append(.text(Timestamp.string(from: until))) }
        return (sql, bindings)
    }

    /// The error of a `search` for `pattern` stopped at its time limit, given in milliseconds.
    static func tooSlow(_ search: JournalSearch, _ pattern: CompiledRequestPattern) -> @Sendable (Int) -> JournalCountError {
        let source = pattern.source
        return { milliseconds in .tooSlow(milliseconds: milliseconds, search: search, pattern: source) }
    }

    /// `body` on a read connection, its statements stopped at `deadline`.
    /// - Parameter tooSlow: the error for a stop at the deadline, given `timeLimit` in
    ///   milliseconds (a search's ``JournalCountError/tooSlow(milliseconds:search:pattern:)``, or a
    ///   filtered listing's ``JournalCountError/listingTooSlow(milliseconds:)``).
    /// - Throws: `tooSlow`'s error when the deadline stopped it; what `body` throws otherwise.
    func reading<T: Sendable>(
        until deadline: ContinuousClock.Instant, timeLimit: Duration,
        tooSlow: (_ milliseconds: Int) -> JournalCountError, _ body: @escaping (Database) throws -> T
    ) throws -> T {
        guard ContinuousClock.now < deadline else { throw tooSlow(Int(timeLimit.milliseconds)) }
        do {
            return try reader.use { db in try db.withDeadline(deadline) { try body(db) } }
        } catch {
            // The progress handler, or the Swift matcher's own check, stopped it.
            if error is DeadlinePassed || ContinuousClock.now >= deadline { throw tooSlow(Int(timeLimit.milliseconds)) }
            throw error
        }
    }
}
