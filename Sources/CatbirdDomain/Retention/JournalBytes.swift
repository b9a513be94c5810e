import CatbirdStorage
import CatbirdSupport
import Synchronization

/// The journal's size in bytes, as the byte limit of retention counts it
/// (``RetentionPolicy/journalMaxBytes``, docs/operations.md#retention), kept without a scan of
/// the table.
///
/// Two sources add bytes. The journal writer adds each batch it commits (``committed(_:)``,
/// from the values it has just bound, on the write connection right after the commit). The
/// rows and shared bodies already in the file when counting starts (``catchUp(_:)``'s first
/// call, which notes the highest ids then: `Scan.end`) are read by SQL, ``scanChunk`` rows
/// at a time, over the first passes; no SQL reads a row written after that. (Until 2026-12-02
/// every pass read the rows written since the last one by SQL, holding the write connection
/// meanwhile: under 64 connections of mock hits the pruning thread spent 318 ms of CPU in
/// 8.5 s, about 75 ms per 2-s pass, while the journal writer and every mock update waited.)
///
/// Two TEMP triggers of the write connection (never in the file, invisible to every other
/// connection) add the bytes of every counted row or body deleted by anyone on that connection
/// (journal clears, tenant drops, retention, the tenants' `ON DELETE CASCADE`) to a TEMP
/// one-row table, `temp.catbird_journal_released`, in the deletion's own transaction, so a
/// rolled-back deletion takes its bytes back with it. The journal's bytes are those added less
/// those released. The triggers learn which rows were counted from two SQL functions reading
/// this object (`Scan.counts(_:)`): the commit, the count and any deletion all hold the
/// write connection, so none runs between another's steps.
///
/// A row's bytes are its stored texts and blobs plus ``rowOverhead`` (``rowBytes(_:)``); a
/// shared body (`journal_bodies`, docs/schema.md#response-bodies-stored-once) counts once, as
/// stored.
///
/// The rows' bytes are also kept per tenant (``tenantBytes(_:)``), for the limit's fair shares
/// (``JournalShares``): ``catchUp(_:)`` adds each tenant's, and a third TEMP trigger adds each
/// deleted counted row's bytes to its tenant's line of `temp.catbird_journal_released_rows`,
/// which ``tenantBytes(_:)`` folds into the counts. A shared body is counted per tenant apart, by
/// ``tenantBodyBytes(_:)`` (its `tenant` column). A blob's length is SQLite's `length()` of the bare column, which reads no overflow
/// page. Only the counting reads write nothing, so a pass that finds nothing to delete
/// changes no row (``SerialDatabase``'s storage faults are cleared by real writes only).
final class JournalBytes: Sendable {
    /// Rows counted per statement while catching up (a restarted server counts its whole
    /// journal this way, letting go of the connection between chunks): 5,000.
    static let scanChunk = 5_000
    /// Bytes counted for a row besides its texts and blobs (ids, numbers, the record's and the
    /// b-tree cell's own bytes): 64.
    static let rowOverhead = 64

    private struct Counted {
        /// The rows and shared bodies in the file when counting started: ids up to `scanEnd`,
        /// read by ``JournalBytes/catchUp(_:)`` up to `scanned` so far. Those written later
        /// (ids above `scanEnd`) are counted by the journal writer as it commits them.
        var rows = Scan()
        var bodies = Scan()
        /// The bytes counted, by either source.
        var added = 0
        /// The counted rows' bytes by tenant, less those released and folded in by
        /// ``tenantBytes(_:)`` (a tenant with none left is absent).
        var byTenant: [TenantID: Int] = [:]
        var installed = false
    }

    /// What ``catchUp(_:)`` reads of one table: the ids up to `end`.
    private struct Scan {
        var scanned: Int64 = 0
        var end: Int64 = 0
        var isDone: Bool { scanned >= end }

        /// Whether the row or body with this id is counted: read by the scan, or written after
        /// counting started (the writer counts those as it commits them).
        func counts(_ id: Int64) -> Bool { id <= scanned || id > end }
    }

    private let counted = Mutex(Counted())

    /// ``rowBytes(_:)`` of the table's own columns.
    private static let ownRowBytes = rowBytes("")

    /// The SQL expression of one `journal_rows` row's bytes; `row` is `""` for the table's own
    /// columns or `"OLD."` in a trigger. Texts are measured in bytes (cast to a blob), blobs
    /// with a bare `length()`.
    static func rowBytes(_ row: String) -> String {
        let texts = ["time", "tenant", "method", "url", "request_headers", "response_headers", "near_misses_copy", "problem", "file_path"]
            .map { "ifnull(length(CAST(\(row)\($0) AS BLOB)), 0)" }
        let blobs = ["request_body", "response_body"].map { "ifnull(length(\(row)\($0)), 0)" }
        return "(\(rowOverhead) + " + (texts + blobs).joined(separator: " + ") + ")"
    }

    /// Creates the released bytes' table, its triggers and the functions they read on the write
    /// connection `db`, once.
    /// - Throws: `SQLiteError`.
    private func install(_ db: Database) throws {
        guard !counted.withLock({ $0.installed }) else { return }
        try db.createFunction("catbird_journal_row_counted", argumentCount: 1, deterministic: false) { [self] call in
            .integer(counted.withLock { $0.rows.counts(call.integer(0)) } ? 1 : 0)
        }
        try db.createFunction("catbird_journal_body_counted", argumentCount: 1, deterministic: false) { [self] call in
            .integer(counted.withLock { $0.bodies.counts(call.integer(0)) } ? 1 : 0)
        }
        try db.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS catbird_journal_released AS SELECT 0 AS bytes;
            -- Unqualified in a trigger's body (SQLite refuses `temp.` there): the TEMP table is found first.
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_rows_released AFTER DELETE ON main.journal_rows
            WHEN catbird_journal_row_counted(OLD.id) BEGIN
                UPDATE catbird_journal_released SET bytes = bytes + \(Self.rowBytes("OLD."));
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_bodies_released AFTER DELETE ON main.journal_bodies
            WHEN catbird_journal_body_counted(OLD.id) BEGIN
                UPDATE catbird_journal_released SET bytes = bytes + length(OLD.body);
            END;
            CREATE TEMP TABLE IF NOT EXISTS catbird_journal_released_rows (
                tenant TEXT PRIMARY KEY NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_rows_released_by_tenant AFTER DELETE ON main.journal_rows
            WHEN catbird_journal_row_counted(OLD.id) BEGIN
                INSERT INTO catbird_journal_released_rows (tenant, bytes) VALUES (OLD.tenant, \(Self.rowBytes("OLD.")))
                ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + excluded.bytes;
            END;
            """)
        // From here on the writer counts what it commits; what is in the file now is scanned.
        let rowsEnd = try db.query("SELECT max(id) FROM main.journal_rows").first?[0].intValue ?? 0
        let bodiesEnd = try db.query("SELECT max(id) FROM main.journal_bodies").first?[0].intValue ?? 0
        counted.withLock { counted in
            counted.rows = Scan(scanned: 0, end: rowsEnd)
            counted.bodies = Scan(scanned: 0, end: bodiesEnd)
            counted.installed = true
        }
    }

    /// Counts the next chunk of the rows, and the shared bodies, that were in the file when
    /// counting started (the first call starts it), on the write connection `db` (the one whose
    /// deletions the triggers see and whose commits the writer counts).
    /// - Returns: whether every row and body is now counted.
    /// - Throws: `SQLiteError`.
    func catchUp(_ db: Database) throws -> Bool {
        try install(db)
        let (rows, bodies) = counted.withLock { ($0.rows, $0.bodies) }
        if !bodies.isDone {
            let sum = try db.query(
                "SELECT sum(length(body)) FROM main.journal_bodies WHERE id > ? AND id <= ?",
                [.integer(bodies.scanned), .integer(bodies.end)]
            ).first?[0].intValue ?? 0
            counted.withLock { counted in
                counted.bodies.scanned = bodies.end
                counted.added += Int(sum)
            }
        }
        guard !rows.isDone else { return true }
        let byTenant = try db.query(
            """
            SELECT tenant, max(id), count(*), sum(bytes) FROM (
                SELECT id, tenant, \(Self.ownRowBytes) AS bytes FROM main.journal_rows WHERE id > ? AND id <= ? ORDER BY id LIMIT ?)
            GROUP BY tenant
            """, [.integer(rows.scanned), .integer(rows.end), .integer(Int64(Self.scanChunk))]
        )
        let finished = byTenant.reduce(0) { $0 + ($1[2].intValue ?? 0) } < Int64(Self.scanChunk)
        counted.withLock { counted in
            for row in byTenant {
                let bytes = Int(row[3].intValue ?? 0)
                counted.rows.scanned = max(counted.rows.scanned, row[1].intValue ?? 0)
                counted.added += bytes
                counted.byTenant[TenantID(row[0].stringValue ?? ""), default: 0] += bytes
            }
            // The chunk reached `end`: the ids between its last row and `end` were deleted.
            if finished { counted.rows.scanned = counted.rows.end }
        }
        return finished
    }

    /// Adds a batch the journal writer has just committed (``JournalRecords/Written``), on the
    /// write connection, before letting go of it (so no deletion of its rows comes first).
    /// Nothing until counting has started: those rows are then in the file, for
    /// ``catchUp(_:)`` to read. An amendment's bytes count only toward a row already counted
    /// (`Scan.counts(_:)`): a row in the file at the start that the scan has not read yet is
    /// read with its amendment (until 2026-12-02 those bytes were counted twice, and the byte
    /// limit pruned that much early right after a start).
    func committed(_ written: JournalRecords.Written) {
        counted.withLock { counted in
            guard counted.installed else { return }
            counted.added += written.bodyBytes
            for (tenant, bytes) in written.rowBytes {
                counted.added += bytes
                counted.byTenant[tenant, default: 0] += bytes
            }
            for amended in written.amendedBytes where counted.rows.counts(amended.rowID) {
                counted.added += amended.bytes
                counted.byTenant[amended.tenant, default: 0] += amended.bytes
            }
        }
    }

    /// The bytes ``rowBytes(_:)`` counts for the row `entry` is written as, from the values
    /// bound (``JournalRecords``): its texts' UTF-8 bytes (what SQLite stores and
    /// `length(CAST(… AS BLOB))` reads back), its (truncated) bodies' bytes, the response body
    /// only when the row holds it (`responseBodyInRow`: not when it points at a shared body),
    /// near misses only when written as their own text.
    static func rowBytes(of entry: borrowing JournalEntry, responseBodyInRow: Bool) -> Int {
        var bytes = rowOverhead + entry.time.utf8.count + entry.tenant.rawValue.utf8.count + entry.method.utf8.count
            + entry.url.utf8.count + entry.requestHeaders.utf8.count + entry.responseHeaders.utf8.count
            + (entry.problem?.utf8.count ?? 0) + (entry.filePath?.utf8.count ?? 0) + entry.requestBody.count
        if case let .text(text)? = entry.nearMisses { bytes += text.utf8.count }
        if responseBodyInRow { bytes += entry.responseBody.count }
        return bytes
    }

    /// The counted rows' bytes by tenant (shared bodies not included), those released by
    /// deletions taken off; tenants with none are absent. Folds the released bytes the trigger
    /// noted into the counts, emptying its table (a write to the TEMP table only, and only when
    /// it holds something).
    /// - Throws: `SQLiteError`.
    func tenantBytes(_ db: Database) throws -> [TenantID: Int] {
        let released = try db.query("SELECT tenant, bytes FROM temp.catbird_journal_released_rows")
        if !released.isEmpty { try db.run("DELETE FROM temp.catbird_journal_released_rows") }
        return counted.withLock { counted in
            for row in released {
                let tenant = TenantID(row[0].stringValue ?? "")
                let left = (counted.byTenant[tenant] ?? 0) - Int(row[1].intValue ?? 0)
                counted.byTenant[tenant] = left > 0 ? left : nil
            }
            return counted.byTenant
        }
    }

    /// The journal's bytes as counted so far: added by ``catchUp(_:)`` less released by the
    /// triggers.
    /// - Throws: `SQLiteError`.
    func bytes(_ db: Database) throws -> Int {
        let released = try db.query("SELECT bytes FROM temp.catbird_journal_released").first?[0].intValue ?? 0
        return counted.withLock { $0.added } - Int(released)
    }

    /// The bytes of each tenant's stored-once response bodies (`journal_bodies.tenant`,
    /// migrations/0015_journal_bodies_tenant.sql): every row pointing at one is of its tenant,
    /// so the byte limit's shares count it there (tester findings tester34b-F9, F10). A body
    /// stored before that migration has no tenant and counts toward the total only. One read
    /// of the bodies' table (a blob's `length()` reads no overflow page); called only while the
    /// journal is over its byte limit.
    /// - Throws: `SQLiteError`.
    func tenantBodyBytes(_ db: Database) throws -> [TenantID: Int] {
        var bytes: [TenantID: Int] = [:]
        for row in try db.query("SELECT tenant, sum(length(body)) FROM main.journal_bodies WHERE tenant IS NOT NULL GROUP BY tenant") {
            bytes[TenantID(row[0].stringValue ?? "")] = Int(row[1].intValue ?? 0)
        }
        return bytes
    }

    /// One of a tenant's oldest rows (``oldest(_:of:after:limit:)``): its id, its own bytes,
    /// and the stored-once body it points at, if any, with that body's bytes and references.
    struct OldRow {
        var id: Int64
        var bytes: Int
        var body: (id: Int64, bytes: Int, refs: Int)?
    }

    /// The tenant's oldest rows after `hidden` (the ids a journal clear or tenant drop is
    /// deleting: ``JournalDeletions``), at most `limit`, oldest first. Called once
    /// ``catchUp(_:)`` has counted every row: each row is then counted.
    /// - Throws: `SQLiteError`.
    func oldest(_ db: Database, of tenant: TenantID, after hidden: Int64, limit: Int) throws -> [OldRow] {
        try db.query(
            """
            SELECT r.id, \(Self.rowBytes("r.")), b.id, length(b.body), b.refs
            FROM main.journal_rows r LEFT JOIN main.journal_bodies b ON b.id = r.response_body_id
            WHERE r.tenant = ? AND r.id > ? ORDER BY r.id LIMIT ?
            """,
            [.text(tenant.rawValue), .integer(hidden), .integer(Int64(limit))]
        ).compactMap { row in
            guard let id = row[0].intValue, let bytes = row[1].intValue else { return nil }
            let body = row[2].intValue.map { (id: $0, bytes: Int(row[3].intValue ?? 0), refs: Int(row[4].intValue ?? 1)) }
            return OldRow(id: id, bytes: Int(bytes), body: body)
        }
    }
}
