import CatbirdStorage
import CatbirdSupport
import Synchronization

/// The highest journal id of each tenant that retention deleted (its age, row and byte limits:
/// docs/operations.md#retention), since the server started, so that a count, find, listing or
/// wait over a range that reached those entries says so instead of silently missing them
/// (try9b F2: a noisy tenant's flood pruned a quiet tenant's journal and its `count` answered 0
/// as if its app had never sent the requests).
///
/// One id per tenant that lost entries (so bounded by the tenants), kept in the table
/// `journal_pruned` (migration 0012) and in memory for the reads: each id is written on the
/// write connection with the deletion that raised it (before its `DELETE`, so a crash between
/// the two leaves the note, never rows deleted without one), and loaded when the server starts,
/// so a restart keeps it (until migration 0012 it was kept in memory only, and a count over a
/// range retention had reached answered as if nothing was missing after a restart). A tenant's
/// journal clear or drop deletes its id in the same transaction (the entries after it start a
/// new range).
public final class JournalPruned: Sendable {
    private let floors: Mutex<[TenantID: Int64]>

    /// Loads the ids kept by earlier runs (none: an empty note).
    /// - Throws: `SQLiteError`.
    public init(database: SerialDatabase) throws {
        let rows = try database.use { try $0.query("SELECT tenant, through_id FROM journal_pruned") }
        floors = Mutex(Dictionary(rows.map { (TenantID($0[0].stringValue ?? ""), $0[1].intValue ?? 0) }, uniquingKeysWith: max))
    }

    /// The highest id of `tenant`'s entries deleted by retention; 0 when none was.
    public func through(_ tenant: TenantID) -> Int64 {
        floors.withLock { $0[tenant] ?? 0 }
    }

    /// Whether retention deleted some of `tenant`'s entries after `since` (an entry id: the
    /// start of a range asked for; 0 for the whole journal).
    public func reaches(_ tenant: TenantID, after since: Int64) -> Bool {
        through(tenant) > since
    }

    /// Notes that retention is deleting `tenant`'s entries up to `id`: stored on `db` (the
    /// write connection, before the rows' `DELETE`), then in memory.
    /// - Throws: `SQLiteError`; nothing is noted in memory then.
    func deleting(_ db: Database, _ tenant: TenantID, through id: Int64) throws {
        try db.run(
            """
            INSERT INTO journal_pruned (tenant, through_id) VALUES (?, ?)
            ON CONFLICT (tenant) DO UPDATE SET through_id = max(through_id, excluded.through_id)
            """, [.text(tenant.rawValue), .integer(id)])
        floors.withLock { $0[tenant] = max($0[tenant] ?? 0, id) }
    }

    /// ``deleting(_:_:through:)`` for each row read as `(tenant, max(id))`.
    func deleting(_ db: Database, _ rows: [Row]) throws {
        for row in rows {
            guard let id = row[1].intValue else { continue }
            try deleting(db, TenantID(row[0].stringValue ?? ""), through: id)
        }
    }

    /// Deletes `tenant`'s stored id on `db`, inside the transaction of its journal clear or
    /// drop; call ``forget(_:)`` after it committed.
    /// - Throws: `SQLiteError`.
    static func delete(_ db: Database, _ tenant: TenantID) throws {
        try db.run("DELETE FROM journal_pruned WHERE tenant = ?", [.text(tenant.rawValue)])
    }

    /// Deletes every stored id on `db`, inside the transaction that drops every tenant; call
    /// ``forgetAll()`` after it committed.
    /// - Throws: `SQLiteError`.
    static func deleteAll(_ db: Database) throws {
        try db.execute("DELETE FROM journal_pruned")
    }

    /// Forgets `tenant`'s id in memory (its journal was cleared or it was dropped, and
    /// ``delete(_:_:)`` committed).
    func forget(_ tenant: TenantID) {
        floors.withLock { $0[tenant] = nil }
    }

    /// Forgets every tenant's id in memory (every tenant was dropped, ``deleteAll(_:)`` committed).
    func forgetAll() {
        floors.withLock { $0.removeAll() }
    }

    /// How many tenants' ids are held in memory (for `/catbird/metrics`).
    public var tenantEntries: Int {
        floors.withLock { $0.count }
    }
}
