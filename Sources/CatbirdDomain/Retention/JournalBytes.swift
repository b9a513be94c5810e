import CatbirdStorage
import CatbirdSupport
import Synchronization

/// The journal's size in bytes, as the byte limit of retention counts it
/// (``RetentionPolicy/journalMaxBytes``, docs/operations.md#retention), kept without a scan of
/// the table and without any work on the journal writer's inserts.
///
/// ``catchUp(_:)`` adds the rows and shared bodies written since its last call: ids only grow,
/// so it reads only the new rows (ids above what it counted), ``scanChunk`` at a time. Two TEMP
/// triggers of the write connection (never in the file, invisible to every other connection)
/// add the bytes of every counted row or body deleted by anyone on that connection (journal
/// clears, tenant drops, retention, the tenants' `ON DELETE CASCADE`) to a TEMP one-row table,
/// `temp.catbird_journal_released`, in the deletion's own transaction, so a rolled-back
/// deletion takes its bytes back with it. The journal's bytes are those added less those
/// released. The triggers learn what was counted from two SQL functions reading this object.
///
/// A row's bytes are its stored texts and blobs plus ``rowOverhead`` (``rowBytes(_:)``); a
/// shared body (`journal_bodies`, docs/schema.md#response-bodies-stored-once) counts once, as
/// stored.
///
/// The rows' bytes are also kept per tenant (``tenantBytes(_:)``), for the limit's fair shares
/// (``JournalShares``): ``catchUp(_:)`` adds each tenant's, and a third TEMP trigger adds each
/// deleted counted row's bytes to its tenant's line of `temp.catbird_journal_released_rows`,
/// which ``tenantBytes(_:)`` folds into the counts. A shared body counts toward no tenant. A blob's length is SQLite's `length()` of the bare column, which reads no overflow
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
        /// Rows and shared bodies up to these ids are counted.
        var rowsThrough: Int64 = 0
        var bodiesThrough: Int64 = 0
        /// Their bytes when they were counted.
        var added = 0
        /// The counted rows' bytes by tenant, less those released and folded in by
        /// ``tenantBytes(_:)`` (a tenant with none left is absent).
        var byTenant: [TenantID: Int] = [:]
        var installed = false
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
        try db.createFunction("catbird_journal_rows_counted", argumentCount: 0, deterministic: false) { [self] _ in
            .integer(counted.withLock { $0.rowsThrough })
        }
        try db.createFunction("catbird_journal_bodies_counted", argumentCount: 0, deterministic: false) { [self] _ in
            .integer(counted.withLock { $0.bodiesThrough })
        }
        try db.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS catbird_journal_released AS SELECT 0 AS bytes;
            -- Unqualified in a trigger's body (SQLite refuses `temp.` there): the TEMP table is found first.
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_rows_released AFTER DELETE ON main.journal_rows
            WHEN OLD.id <= catbird_journal_rows_counted() BEGIN
                UPDATE catbird_journal_released SET bytes = bytes + \(Self.rowBytes("OLD."));
            END;
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_bodies_released AFTER DELETE ON main.journal_bodies
            WHEN OLD.id <= catbird_journal_bodies_counted() BEGIN
                UPDATE catbird_journal_released SET bytes = bytes + length(OLD.body);
            END;
            CREATE TEMP TABLE IF NOT EXISTS catbird_journal_released_rows (
                tenant TEXT PRIMARY KEY NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TEMP TRIGGER IF NOT EXISTS catbird_journal_rows_released_by_tenant AFTER DELETE ON main.journal_rows
            WHEN OLD.id <= catbird_journal_rows_counted() BEGIN
                INSERT INTO catbird_journal_released_rows (tenant, bytes) VALUES (OLD.tenant, \(Self.rowBytes("OLD.")))
                ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + excluded.bytes;
            END;
            """)
        counted.withLock { $0.installed = true }
    }

    /// Counts the shared bodies and the next chunk of rows written since the last call, on the
    /// write connection `db` (the one whose deletions the triggers see).
    /// - Returns: whether every row written so far is now counted.
    /// - Throws: `SQLiteError`.
    func catchUp(_ db: Database) throws -> Bool {
        try install(db)
        let (rowsThrough, bodiesThrough) = counted.withLock { ($0.rowsThrough, $0.bodiesThrough) }
        let bodies = try db.query(
            "SELECT max(id), sum(length(body)) FROM main.journal_bodies WHERE id > ?", [.integer(bodiesThrough)]
        ).first
        let byTenant = try db.query(
            """
            SELECT tenant, max(id), count(*), sum(bytes) FROM (
                SELECT id, tenant, \(Self.ownRowBytes) AS bytes FROM main.journal_rows WHERE id > ? ORDER BY id LIMIT ?)
            GROUP BY tenant
            """, [.integer(rowsThrough), .integer(Int64(Self.scanChunk))]
        )
        counted.withLock { counted in
            if let last = bodies?[0].intValue {
                counted.bodiesThrough = last
                counted.added += Int(bodies?[1].intValue ?? 0)
            }
            for row in byTenant {
                let bytes = Int(row[3].intValue ?? 0)
                counted.rowsThrough = max(counted.rowsThrough, row[1].intValue ?? 0)
                counted.added += bytes
                counted.byTenant[TenantID(row[0].stringValue ?? ""), default: 0] += bytes
            }
        }
        return byTenant.reduce(0) { $0 + ($1[2].intValue ?? 0) } < Int64(Self.scanChunk)
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

    /// The tenant's oldest counted rows after `hidden` (the ids a journal clear or tenant drop is
    /// deleting: ``JournalDeletions``), at most `limit`: their ids and bytes, oldest first.
    /// - Throws: `SQLiteError`.
    func oldest(_ db: Database, of tenant: TenantID, after hidden: Int64, limit: Int) throws -> [(id: Int64, bytes: Int)] {
        try db.query(
            "SELECT id, \(Self.ownRowBytes) FROM main.journal_rows WHERE tenant = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
            [.text(tenant.rawValue), .integer(hidden), .integer(counted.withLock { $0.rowsThrough }), .integer(Int64(limit))]
        ).compactMap { row in
            guard let id = row[0].intValue, let bytes = row[1].intValue else { return nil }
            return (id, Int(bytes))
        }
    }
}
