import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// The request journal: appends go through the ``JournalWriter``; reads wait for it to flush
/// and then use the read connection, so they see every request answered before they began.
public final class Journal: Sendable {
    /// Owns appends; reached through ``append(_:)`` and ``flush()`` only.
    let writer: JournalWriter
    let reader: DatabasePool
    private let database: SerialDatabase
    /// Threads that take part of a long count while a core is free
    /// (``count(of:matching:timeLimit:)``), at nice 10: they yield to the server's workers.
    let countHelpers = SpareThreads(limit: Journal.countHelperLimit, name: "catbird-count", niceness: 10)
    /// Who counted the parts of shared counts (``JournalCountStatistics``).
    public let countStatistics = JournalCountStatistics()

    /// How many counts may have a spare thread at once: 2. Each holds a read connection while
    /// it runs, so the server's read pool has this many connections beyond its control threads'
    /// (docs/tenancy.md#fair-shares: reads never wait for a connection).
    public static let countHelperLimit = 2
    /// Journal rows being deleted in the background, hidden from every read.
    public let deletions: JournalDeletions
    /// What retention deleted of each tenant's journal (reads that reach it say so), as
    /// stored in `journal_pruned` (kept across restarts).
    public let pruned: JournalPruned

    /// - Parameters:
    ///   - writer: the writer that owns appends.
    ///   - database: the write connection (for clearing).
    ///   - reader: read-only connections on the same file, each with
    ///     ``registerFunctions(on:)`` applied: one per thread that reads, and
    ///     ``countHelperLimit`` more for the counts' spare threads.
    ///   - deletions: the background deletes of cleared and dropped journals.
    ///   - pruned: what retention deleted, loaded from `database` (``JournalPruned/init(database:)``).
    public init(writer: JournalWriter, database: SerialDatabase, reader: DatabasePool, deletions: JournalDeletions, pruned: JournalPruned) {
        self.deletions = deletions
        self.pruned = pruned
        self.writer = writer
        self.database = database
        self.reader = reader
    }

    /// Registers the SQL functions journal reads use (``RequestMatchFunction``) on a read connection.
    /// - Parameter decodingBodies: undoes a journaled request body's `Content-Encoding` for body
    ///   patterns, as mock matching does (``JournalBodyDecoder``); nil: bodies are matched as
    ///   journaled.
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    public static func registerFunctions(on connection: Database, decodingBodies: JournalBodyDecoder? = nil) throws(SQLiteError) {
        try RequestMatchFunction.register(on: connection, decodingBodies: decodingBodies)
    }

    /// Callbacks waiting for a tenant's entries, woken by the writer after each commit.
    public var waiters: JournalWaiters { writer.waiters }

    /// Forgets what the journal holds in memory for `tenant` besides its pending deletion (its
    /// remembered commits), once its drop committed.
    func forget(_ tenant: TenantID) {
        writer.waiters.forget(tenant)
        writer.waiters.wakeAfterReset(of: tenant)
    }

    /// ``forget(_:)`` for every tenant, once a drop of every tenant committed.
    func forgetEveryTenant() {
        writer.waiters.forgetEveryTenant()
        writer.waiters.wakeAfterReset(of: nil)
    }

    /// The highest id in the tenant's journal (0 when it has none), after the queued journal
    /// is written. Read it before looking at the journal, then wait with
    /// ``JournalWaiters/wait(for:after:timeout:wake:)`` for what comes after.
    /// - Throws: `SQLiteError`.
    public func latestID(of tenant: TenantID) throws -> Int64 {
        try writer.flushForReading(tenant)
        return try reader.use { db in
            try db.query("SELECT max(id) FROM journal_rows WHERE tenant = ?", [.text(tenant.rawValue)]).first?[0].intValue ?? 0
        }
    }

    /// The lowest and highest ids of the tenant's entries a reader sees (0 and 0 when it has
    /// none), after the queued journal is written: unlike ``latestID(of:)``, rows a clear or drop
    /// is still deleting in the background are not counted. What the listing tells a client
    /// following the journal with `since=` (docs/protocol.md#following-the-journal): a `since`
    /// above the highest names entries this journal does not have; entries it holds below the
    /// lowest are gone (cleared, dropped or pruned; tester finding tester20b-F1). Two indexed
    /// lookups (one `min` and one `max`, each its own subquery so that SQLite reads one row).
    /// - Throws: `SQLiteError`.
    public func visibleIDs(of tenant: TenantID) throws -> (oldest: Int64, newest: Int64) {
        try writer.flushForReading(tenant)
        return try reader.use { db in
            let bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(deletions.hiddenThrough(tenant))]
            let row = try db.query(
                "SELECT (SELECT min(id) FROM journal_rows WHERE tenant = ?1 AND id > ?2), "
                    + "(SELECT max(id) FROM journal_rows WHERE tenant = ?1 AND id > ?2)", bindings
            ).first
            return (row?[0].intValue ?? 0, row?[1].intValue ?? 0)
        }
    }

    /// The highest journal entry id this database has issued, to any tenant (0 before the
    /// first): AUTOINCREMENT's `sqlite_sequence`, which a clear, a drop or retention never
    /// lowers. An id above it was never this journal's: one kept from another database (a run
    /// on a fresh `--db :memory:`), or made up. Committed rows only, which are the only ids a
    /// client can have been given.
    /// - Throws: `SQLiteError`.
    public func newestIssuedID() throws -> Int64 {
        try reader.use { db in
            try db.query("SELECT seq FROM sqlite_sequence WHERE name = 'journal_rows'").first?[0].intValue ?? 0
        }
    }

    /// Queues one entry; see ``JournalWriter/append(_:)``.
    /// - Returns: its ticket, for ``whenCommitted(_:_:)``.
    @discardableResult
    public func append(_ entry: consuming JournalEntry) -> JournalTicket {
        writer.append(entry)
    }

    /// Queues one entry, or holds it while its tenant's large entries fill their share of the
    /// queue; see ``JournalWriter/appendOrHold(_:)``.
    public func appendOrHold(_ entry: consuming JournalEntry) -> JournalAppend {
        writer.appendOrHold(entry)
    }

    /// Puts `entry` in place of the still-queued entry behind `ticket`; see
    /// ``JournalWriter/replaceQueued(_:with:)``.
    /// - Returns: false when the entry is no longer queued (nothing changed).
    public func replaceQueued(_ ticket: JournalTicket, with entry: consuming JournalEntry) -> Bool {
        writer.replaceQueued(ticket, with: entry)
    }

    /// Puts `entry` in place of the entry `hold` stands for while it is still held; see
    /// ``JournalWriter/replaceHeld(_:with:)``.
    /// - Returns: false when the entry is no longer held (nothing changed).
    public func replaceHeld(_ hold: JournalHold, with entry: consuming JournalEntry) -> Bool {
        writer.replaceHeld(hold, with: entry)
    }

    /// Adds `problem` (if any) to the `problem` of the entry behind `ticket` once it is written,
    /// and changes its `filePath` as `filePath` says; see ``JournalWriter/amend(_:problem:filePath:)``.
    public func amend(_ ticket: JournalTicket, problem: String?, filePath: JournalFilePathChange = .unchanged) {
        writer.amend(ticket, problem: problem, filePath: filePath)
    }

    /// Calls `done(true)` once the entry behind `ticket` (and its mock hit) is committed,
    /// `done(false)` when it never will be; see ``JournalWriter/whenCommitted(_:_:)``.
    public func whenCommitted(_ ticket: JournalTicket, _ done: @escaping @Sendable (Bool) -> Void) {
        writer.whenCommitted(ticket, done)
    }

    /// Waits until every entry queued before the call is committed, every tenant's, however
    /// long the writer's rounds fail (the server's own waits give up then:
    /// ``flushForReading(_:)``, ``flushUnlessFailing(_:)``).
    public func flush() {
        writer.flush()
    }

    /// Waits until every entry of `tenant` queued before the call is committed, so that a read
    /// of its journal that follows sees it (docs/protocol.md#read-your-writes), without waiting
    /// for other tenants' entries queued after its last one (``JournalWriter/flush(for:)``).
    public func flush(for tenant: TenantID) {
        writer.flush(for: tenant)
    }

    /// ``flush(for:)`` (``flush()`` when `tenant` is nil) for a read that must see every
    /// request answered before it: gives up after ``JournalWriter/readPatience`` while the
    /// writer's rounds fail (``JournalWriter/flushForReading(_:)``).
    /// - Throws: ``JournalWaitError`` then.
    public func flushForReading(_ tenant: TenantID?) throws {
        try writer.flushForReading(tenant)
    }

    /// ``flush(for:)`` (``flush()`` when `tenant` is nil) for a change that deletes journal
    /// rows (``JournalWriter/flushUnlessFailing(_:)``): goes ahead after
    /// ``JournalWriter/readPatience`` while the writer fails.
    /// - Returns: nil when the entries were committed; else why the change went ahead without them.
    public func flushUnlessFailing(_ tenant: TenantID?) -> JournalWaitError? {
        writer.flushUnlessFailing(tenant)
    }

    /// The journal writer's failure, nil while its rounds commit (``JournalWriter/failure``).
    public var writerFailure: JournalWriterFailure? { writer.failure }

    /// ``flush(for:)`` that gives up at `deadline` (``JournalWriter/flush(for:before:)``).
    /// - Returns: false when the tenant's entries were not all committed by then.
    public func flush(for tenant: TenantID, before deadline: ContinuousClock.Instant) -> Bool {
        writer.flush(for: tenant, before: deadline)
    }

    /// Entries taken and not yet written; see ``JournalWriter/entriesNotYetWritten``.
    public var entriesNotYetWritten: Int { writer.entriesNotYetWritten }

    /// The writer's queue and commits so far; see ``JournalWriter/statistics()``.
    public func writerStatistics() -> JournalWriterStatistics {
        writer.statistics()
    }

    /// The first `limit` entries of the tenant's journal after entry `since`, oldest first, as
    /// little as a person needs to see what arrived (the wait route's 408 lists them): method,
    /// URL cut to its first `urlCharacters` characters (Unicode code points, as SQLite's `substr`
    /// counts them), and status; nothing else is read, so
    /// the answer stays small whatever the requests' headers and bodies.
    /// - Returns: the entries, and whether more follow.
    /// - Throws: `SQLiteError`.
    public func arrivals(of tenant: TenantID, after since: Int64, limit: Int, urlCharacters: Int) throws -> (entries: [JournalArrival], hasMore: Bool) {
        try writer.flushForReading(tenant)
        let (sql, bindings) = Self.select(
            // A body refused before it was taken is not the journal's cut (``bodyReceived``).
            "method, substr(url, 1, \(urlCharacters)), length(url), status, id, (request_body_truncated = 1\(Self.bodyReceived)), "
                + "request_body_size, "
                + "length(request_body)", of: tenant, JournalQuery(since: since, limit: limit),
            limit: limit + 1, hiddenThrough: deletions.hiddenThrough(tenant))
        let rows = try reader.use { try $0.query(sql, bindings) }
        let entries = rows.prefix(limit).map { row in
            JournalArrival(
                method: row[0].stringValue ?? "", url: row[1].stringValue ?? "", urlCharacters: Int(row[2].intValue ?? 0),
                status: row[3].intValue.map { Int($0) }, id: row[4].intValue ?? 0,
                requestBodyKept: (row[5].intValue ?? 0) != 0 ? Int(row[7].intValue ?? 0) : nil, requestBodySize: Int(row[6].intValue ?? 0))
        }
        return (entries, rows.count > limit)
    }

    /// How many journal rows each tenant holds, those being deleted in the background
    /// (``JournalDeletions``) left out; tenants with none are absent. One pass over the
    /// journal's (tenant, id) index on a read connection, then a count of the rows after the
    /// hidden ones for each tenant that has some.
    /// - Throws: `SQLiteError`.
    func visibleRows() throws -> [TenantID: Int] {
        try reader.use { db in
            var rows: [TenantID: Int] = [:]
            for row in try db.query("SELECT tenant, count(*) FROM journal_rows GROUP BY tenant") {
                let tenant = TenantID(row[0].stringValue ?? "")
                let hidden = deletions.hiddenThrough(tenant)
                let count = hidden == 0 ? row[1].intValue ?? 0 : try db.query(
                    "SELECT count(*) FROM journal_rows WHERE tenant = ? AND id > ?", [.text(tenant.rawValue), .integer(hidden)]
                ).first?[0].intValue ?? 0
                if count > 0 { rows[tenant] = Int(count) }
            }
            return rows
        }
    }

    /// The statement that reads `columns` of the tenant's entries the query selects, in its
    /// order, at most `limit` rows (`query.limit` itself is not used); the entries up to
    /// `hiddenThrough` are being deleted (``JournalDeletions``) and left out.
    static func select(
        _ columns: String, of tenant: TenantID, _ query: JournalQuery, limit: Int, hiddenThrough: Int64
    ) -> (String, [SQLiteValue]) {
        var sql = "SELECT \(columns) FROM requests WHERE tenant = ? AND id > ?"
        var bindings: [SQLiteValue] = [.text(tenant.rawValue), .integer(max(query.since ?? 0, hiddenThrough))]
        if let before = query.before { sql += " AND id < ?"; bindings.append(.integer(before)) }
        if let method = query.method { sql += " AND method = ?"; bindings.append(.text(method)) }
        if let text = query.urlContains { sql += " AND instr(url, ?) > 0"; bindings.append(.text(text)) }
        if let status = query.status { sql += " AND status = ?"; bindings.append(.integer(Int64(status))) }
        if let statusClass = query.statusClass {
            sql += " AND status BETWEEN ? AND ?"
            bindings += [.integer(Int64(statusClass * 100)), .integer(Int64(statusClass * 100 + 99))]
        }
        if let answeredBy = query.answeredBy { sql += " AND answered_by = ?"; bindings.append(.text(answeredBy.rawValue)) }
        // near_misses is NULL exactly when both are (migrations/0008 and 0010): compared on the
        // stored columns, the rows of other requests are skipped without building their bodies.
        if query.unmatchedOnly { sql += " AND (near_misses_offset IS NOT NULL OR near_misses_copy IS NOT NULL)" }
        sql += query.newestFirst ? " ORDER BY id DESC LIMIT ?" : " ORDER BY id LIMIT ?"
        bindings.append(.integer(Int64(limit)))
        return (sql, bindings)
    }

    /// Deletes the tenant's journal (after writing what is queued): from the return on, no read
    /// shows those entries, and they are deleted in the background in small chunks
    /// (``JournalDeletions``), so a large journal never holds the write connection long. A clear
    /// that deleted entries sets the tenant's `last_activity_at`.
    /// - Returns: the number of entries deleted.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func clear(_ tenant: TenantID) throws -> Int {
        // While the writer fails (a full disk this clear may be freeing), it goes ahead after 5 s;
        // the entries still queued are written after it and stay (README.md#storage-faults).
        _ = writer.flushUnlessFailing(tenant)
        let hidden = deletions.hiddenThrough(tenant)
        // Counted on a read connection first: counted in the write transaction, a large journal
        // held the write connection for the whole count, and other tenants' mock updates and
        // the journal writer with it (tester finding tester32a-F2: 459 ms for 631,000 rows).
        // The transaction counts only the rows written since, a few.
        let counted: (count: Int64, through: Int64) = try reader.use { db in
            let row = try db.query(
                "SELECT count(*), max(id) FROM journal_rows WHERE tenant = ? AND id > ?", [.text(tenant.rawValue), .integer(hidden)]
            ).first
            return (row?[0].intValue ?? 0, row?[1].intValue ?? hidden)
        }
        let (count, through) = try database.use { db in
            try db.transaction {
                let row = try db.query(
                    "SELECT count(*), max(id) FROM journal_rows WHERE tenant = ? AND id > ?",
                    [.text(tenant.rawValue), .integer(max(hidden, counted.through))]
                ).first
                let through = row?[1].intValue ?? (counted.through > hidden ? counted.through : nil)
                if let through {
                    try JournalDeletions.schedule(db, tenant: tenant, through: through)
                    // A clear that deleted entries is a control change: stored as the tenant's
                    // activity, as a mock change is, which `--tenant-ttl` reads after a restart
                    // (tester finding tester31b-F3: a tenant that cleared its journal 8 s before
                    // was dropped as idle for 20 s).
                    try TenantRecords.touch(db, tenant: tenant)
                }
                try JournalPruned.delete(db, tenant)
                return (Int(counted.count + (row?[0].intValue ?? 0)), through)
            }
        }
        if let through { deletions.committed(tenant, through: through) }
        pruned.forget(tenant)
        writer.waiters.wakeAfterReset(of: tenant)
        return count
    }

    /// The columns ``record(from:)`` reads, in its order; without bodies, NULL stands in for them.
    static func columns(bodies: Bool) -> String {
        let requestBody = bodies ? "request_body" : "NULL"
        let responseBody = bodies ? "response_body" : "NULL"
        return """
            id, time, tenant, method, url, request_headers, \(requestBody), request_body_size,
            request_body_truncated, status, response_headers, \(responseBody), response_body_size,
            response_body_truncated, answered_by, mock_id, duration_ms, file_path, near_misses, problem
            """
    }

    /// A `requests` row as the journal listing's entry. The stored `time` text is read back
    /// to a date (it is always written by ``Timestamp/now()``, so the listing shows it unchanged).
    /// - Parameter headerFields: true adds each side's fields one by one
    ///   (``CatbirdRequest/Message/headerFields``, the single-entry answer's).
    static func record(from row: Row, headerFields: Bool = false) -> CatbirdRequest {
        func message(status: Int?, headers: Int, body: Int) -> CatbirdRequest.Message {
            let stored = JournalHeaders(json: row[headers].stringValue)
            return CatbirdRequest.Message(
                status: status, headers: stored.joined, body: Data(row[body].blobValue ?? []),
                bodySize: Int(row[body + 1].intValue ?? 0), bodyTruncated: row[body + 2].intValue == 1,
                headerFields: headerFields ? stored.pairs.map { CatbirdRequest.HeaderField(name: $0.name, value: $0.value) } : nil)
        }
        let nearMisses = row[18].stringValue.flatMap { text in
            try? JSONDecoder().decode([CatbirdNearMiss].self, from: Data(text.utf8))
        }
        return CatbirdRequest(
            id: row[0].intValue ?? 0, time: Timestamp.date(from: row[1].stringValue ?? "") ?? Date(timeIntervalSince1970: 0),
            tenant: row[2].stringValue ?? "", method: RequestPattern.HTTPMethod(rawValue: row[3].stringValue ?? ""),
            url: row[4].stringValue ?? "",
            request: message(status: nil, headers: 5, body: 6),
            response: message(status: Int(row[9].intValue ?? 0), headers: 10, body: 11),
            answeredBy: CatbirdRequest.AnsweredBy(rawValue: row[14].stringValue ?? ""),
            mockId: row[15].intValue, durationMs: row[16].doubleValue ?? 0, filePath: row[17].stringValue,
            nearMisses: nearMisses, problem: row[19].stringValue)
    }
}

/// One journal entry as ``Journal/arrivals(of:after:limit:urlCharacters:)`` reads it.
public struct JournalArrival: Sendable, Equatable {
    /// The request's method.
    public let method: String
    /// The start of its URL (all of it when ``urlCharacters`` is no longer).
    public let url: String
    /// How many characters the whole URL has, in Unicode code points (SQLite's `length`): `é`
    /// written as `e` and a combining accent is two.
    public let urlCharacters: Int
    /// The status sent; nil when none was.
    public let status: Int?
    /// The entry's id.
    public var id: Int64 = 0
    /// How many bytes of the request body the journal kept when it kept only a prefix
    /// (`request_body_truncated`, `--journal-body-limit`), else nil.
    public var requestBodyKept: Int?
    /// The request body's full size in bytes.
    public var requestBodySize = 0
}
