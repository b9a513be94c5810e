import CatbirdStorage
import CatbirdSupport
import Dispatch
import Foundation
import Synchronization

/// Journal deletes that answer at once: a journal clear or a tenant drop records the tenant's
/// highest journal id in `journal_deletions` (migration 0004) in the same transaction as the
/// rest of its change, every reader hides the tenant's rows up to that id from then on
/// (``hiddenThrough``, ``floorSQL``), and a background thread deletes them in chunks of
/// ``chunkSize`` rows, each chunk its own short transaction on the write connection, so the
/// journal writer and control changes interleave with it (a 2.4M-row clear held the writer for
/// 5.6 s as one statement). A drop of every tenant records one floor for the whole journal
/// instead (`journal_deletions_all`, migration 0013: ``scheduleEveryTenant(_:through:)``), which
/// hides every tenant's rows up to it and is deleted by id in the same chunks: one row however
/// many tenants (64,000 tenants' rows, one per tenant, took 3.9 s to write before the drop
/// answered). After each chunk the thread leaves the connection alone for as long
/// as the chunk took (at least 1 ms), so it holds the connection at most half the time and a
/// commit waits at most about one chunk: with `--durability strict` every answer waits for its
/// commit, and 2,000-row chunks 1 ms apart took other tenants' p50 from 0.4 ms to 7-33 ms for
/// about 15 s after a 1.2M-row clear (tester finding try6b 12).
///
/// Sendable: the floors are behind a lock; the thread only uses the write connection through
/// ``SerialDatabase``.
public final class JournalDeletions: Sendable {
    /// Rows deleted per transaction: 500 (about 5 ms of the write connection).
    static let chunkSize = 500
    /// `id > ` this hides the rows being deleted; one `?`: the tenant.
    static let floorSQL = "max(coalesce((SELECT through_id FROM journal_deletions WHERE tenant = ?), 0), "
        + "coalesce((SELECT through_id FROM journal_deletions_all), 0))"

    private let database: SerialDatabase
    private let log: Logger
    /// The pending floors, as committed (for readers that cannot join the tables).
    private let floors: Mutex<Floors>
    private let wake = DispatchSemaphore(value: 0)
    private let state = Mutex<(running: Bool, stopped: Bool)>((false, false))
    private let finished = DispatchSemaphore(value: 0)

    /// Loads the pending deletions (an earlier run may have stopped before finishing them).
    /// - Throws: `SQLiteError`.
    public init(database: SerialDatabase, log: Logger) throws {
        self.database = database
        self.log = log
        let (rows, all) = try database.use { db in
            (try db.query("SELECT tenant, through_id FROM journal_deletions"),
             try db.query("SELECT through_id FROM journal_deletions_all").first?[0].intValue ?? 0)
        }
        floors = Mutex(Floors(
            byTenant: Dictionary(rows.map { (TenantID($0[0].stringValue ?? ""), $0[1].intValue ?? 0) }, uniquingKeysWith: max),
            everyTenant: all))
    }

    /// The floors: one tenant's (a journal clear, a tenant drop) and every tenant's (a drop of
    /// every tenant); 0: none.
    private struct Floors {
        var byTenant: [TenantID: Int64]
        var everyTenant: Int64
    }

    /// The highest journal id of `tenant` hidden from readers (0: none).
    public func hiddenThrough(_ tenant: TenantID) -> Int64 {
        floors.withLock { max($0.byTenant[tenant] ?? 0, $0.everyTenant) }
    }

    /// How many tenants have a floor of their own (a clear or drop whose rows are still being
    /// deleted): entries held in memory, for `/catbird/metrics`.
    public var tenantsPending: Int {
        floors.withLock { $0.byTenant.count }
    }

    /// Registers `catbird_journal_floor(tenant)` on `connection`: the highest journal id of
    /// `tenant` hidden from readers (0: none), for the SQL route's `requests` view. Registered
    /// for any number of arguments, so that a tenant's own call of it with another number is
    /// refused by the SQL route's authorizer like any other (tester finding tester48b-F5: with
    /// none it got SQLite's raw "wrong number of arguments").
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    public func registerFloorFunction(on connection: Database) throws(SQLiteError) {
        try connection.createFunction("catbird_journal_floor", argumentCount: -1, deterministic: false) { [self] call throws(SQLFunctionError) in
            .integer(hiddenThrough(TenantID(call.text(0) ?? "")))
        }
    }

    /// Hides `tenant`'s journal rows up to `throughID` and queues their deletion; inside the
    /// caller's transaction on the write connection. Call ``committed(_:through:)`` after the
    /// commit.
    /// - Throws: `SQLiteError`.
    static func schedule(_ db: Database, tenant: TenantID, through throughID: Int64) throws {
        try db.run(
            """
            INSERT INTO journal_deletions (tenant, through_id) VALUES (?, ?)
            ON CONFLICT (tenant) DO UPDATE SET through_id = max(through_id, excluded.through_id)
            """, [.text(tenant.rawValue), .integer(throughID)])
    }

    /// After the transaction that called ``schedule(_:tenant:through:)`` committed: the
    /// in-memory floor follows and the background thread starts deleting.
    func committed(_ tenant: TenantID, through throughID: Int64) {
        floors.withLock { $0.byTenant[tenant] = max($0.byTenant[tenant] ?? 0, throughID) }
        wake.signal()
    }

    /// Hides every tenant's journal rows up to `throughID` (the journal's highest id) and queues
    /// their deletion, in place of every tenant's own pending deletion (all below it); inside
    /// the caller's transaction on the write connection. Call ``committedEveryTenant(through:)``
    /// after the commit. Two statements, however many tenants.
    /// - Throws: `SQLiteError`.
    static func scheduleEveryTenant(_ db: Database, through throughID: Int64) throws {
        try db.run(
            """
            INSERT INTO journal_deletions_all (id, through_id) VALUES (1, ?)
            ON CONFLICT (id) DO UPDATE SET through_id = max(through_id, excluded.through_id)
            """, [.integer(throughID)])
        try db.run("DELETE FROM journal_deletions WHERE through_id <= ?", [.integer(throughID)])
    }

    /// After the transaction that called ``scheduleEveryTenant(_:through:)`` committed: the
    /// in-memory floor follows, the tenants' own floors below it are let go (a new dictionary,
    /// so its storage goes too), and the background thread starts deleting.
    func committedEveryTenant(through throughID: Int64) {
        floors.withLock { floors in
            floors.everyTenant = max(floors.everyTenant, throughID)
            let everyTenant = floors.everyTenant
            floors.byTenant = floors.byTenant.filter { $0.value > everyTenant }
        }
        wake.signal()
    }

    /// Starts the background thread. Idempotent.
    public func start() {
        let started = state.withLock { state in
            guard !state.running, !state.stopped else { return false }
            state.running = true
            return true
        }
        guard started else { return }
        let thread = Thread.named("catbird-deletes") { [self] in
            run()
            finished.signal()
        }
        thread.start()
    }

    /// Stops the thread after its current chunk; what is left is finished by the next run.
    public func stop() {
        let wasRunning = state.withLock { state in
            defer { state.stopped = true }
            return state.running
        }
        guard wasRunning else { return }
        wake.signal()
        finished.wait()
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func run() {
        var saidMoved = false  // a deleted, replaced or truncated file fails every pass: said once (T13-F8, tester21b-F13)
        while !isStopped {
            do {
                let began = ContinuousClock.now
                if try !deleteOneChunk() {
                    _ = wake.wait(timeout: .now() + 5)
                } else {
                    // Leave the write connection to the journal writer between chunks, as long
                    // as the chunk held it (see the type's comment).
                    let held = ContinuousClock.now - began
                    usleep(useconds_t(max(1000, min(held / .microseconds(1), 1_000_000))))
                }
            } catch {
                let moved = DatabaseFileLock.isFileFault(error)
                if !(moved && saidMoved) { log.warning("background journal deletion failed (retrying in 1 s): \(error)") }
                saidMoved = moved
                _ = wake.wait(timeout: .now() + 1)
            }
        }
    }

    /// Deletes one chunk of the first pending deletion (every tenant's first), or finishes it.
    /// - Returns: false when nothing is pending.
    private func deleteOneChunk() throws -> Bool {
        let everyTenant = try settle(deleteChunkOfEveryTenant()) { done in
            floors.withLock { floors in
                if floors.everyTenant == done { floors.everyTenant = 0 }
            }
        }
        if everyTenant { return true }
        return try settle(deleteChunkOfOneTenant()) { done in
            floors.withLock { floors in
                if floors.byTenant[done.tenant] == done.through { floors.byTenant[done.tenant] = nil }
                if floors.byTenant.isEmpty { floors.byTenant = [:] }  // a drop of many tenants' storage goes too
            }
        }
    }

    /// What one chunk of a deletion did; `Floor` names the deletion.
    private enum Chunk<Floor: Sendable>: Sendable {
        case nonePending
        case deleted
        /// Nothing was left to delete: its row is gone, its floor is let go by the caller.
        case finished(Floor)
    }

    /// `chunk` as ``deleteOneChunk()`` answers it; `letGo` is given a finished deletion's floor.
    private func settle<Floor: Sendable>(_ chunk: Chunk<Floor>, letGo: (Floor) -> Void) -> Bool {
        switch chunk {
        case .nonePending: return false
        case .deleted: return true
        case .finished(let floor):
            letGo(floor)
            return true
        }
    }

    /// One chunk of the rows up to every tenant's floor, by id.
    private func deleteChunkOfEveryTenant() throws -> Chunk<Int64> {
        try database.use { db in
            guard let through = try db.query("SELECT through_id FROM journal_deletions_all").first?[0].intValue else {
                return .nonePending
            }
            try db.run(
                "DELETE FROM journal_rows WHERE id IN (SELECT id FROM journal_rows WHERE id <= ? ORDER BY id LIMIT ?)",
                [.integer(through), .integer(Int64(Self.chunkSize))])
            guard db.changes == 0 else { return .deleted }
            try db.run("DELETE FROM journal_deletions_all WHERE through_id = ?", [.integer(through)])
            return .finished(through)
        }
    }

    /// One chunk of the first tenant's rows up to its floor.
    private func deleteChunkOfOneTenant() throws -> Chunk<(tenant: TenantID, through: Int64)> {
        try database.use { db in
            guard let row = try db.query("SELECT tenant, through_id FROM journal_deletions LIMIT 1").first else {
                return .nonePending
            }
            let tenant = row[0].stringValue ?? ""
            let through = row[1].intValue ?? 0
            try db.run(
                "DELETE FROM journal_rows WHERE id IN (SELECT id FROM journal_rows WHERE tenant = ? AND id <= ? ORDER BY id LIMIT ?)",
                [.text(tenant), .integer(through), .integer(Int64(Self.chunkSize))])
            guard db.changes == 0 else { return .deleted }
            try db.run("DELETE FROM journal_deletions WHERE tenant = ? AND through_id = ?", [.text(tenant), .integer(through)])
            return .finished((TenantID(tenant), through))
        }
    }

    /// How many deletions are pending in `db` (tenants dropped or journals cleared whose rows
    /// are not all deleted yet); 0 on a database without the table (a new file).
    /// - Throws: `SQLiteError`.
    public static func pendingCount(_ db: Database) throws -> Int {
        let exists = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_deletions'")
        guard !exists.isEmpty else { return 0 }
        let all = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_deletions_all'")
        let everyTenant = all.isEmpty ? "0" : "(SELECT count(*) FROM journal_deletions_all)"
        return Int(try db.query("SELECT (SELECT count(*) FROM journal_deletions) + \(everyTenant)").first?[0].intValue ?? 0)
    }

    /// Finishes every pending deletion at once (start-up, before migrating: a later migration's
    /// `foreign_key_check` must not meet the rows of a dropped tenant). Nothing happens on a
    /// database without the table.
    /// - Throws: `SQLiteError`.
    public static func finishPending(_ db: Database) throws {
        let exists = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_deletions'")
        guard !exists.isEmpty else { return }
        // The rows' table: `requests` before migrations/0010_requests_response_bodies_once.sql,
        // which renamed it `journal_rows` (and made `requests` a view).
        let renamed = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_rows'")
        let rows = renamed.isEmpty ? "requests" : "journal_rows"
        // Nothing pending (a clean stop finished them): no transaction at all. An empty
        // `DELETE FROM journal_deletions` still rewrites the table's root page, so an up-to-date
        // file on a full disk failed to start with `full … in: COMMIT` (try6a F5); start-up must
        // not write to a file that needs no change (README.md#storage-faults).
        // The floor of a drop of every tenant: migrations/0013_journal_deletions_all.sql.
        let all = try !db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_deletions_all'").isEmpty
        let everyTenantPending = try all && !db.query("SELECT 1 FROM journal_deletions_all LIMIT 1").isEmpty
        guard try everyTenantPending || !db.query("SELECT 1 FROM journal_deletions LIMIT 1").isEmpty else { return }
        try db.transaction {
            if everyTenantPending {
                try db.execute("""
                    DELETE FROM \(rows) WHERE id <= (SELECT through_id FROM journal_deletions_all);
                    DELETE FROM journal_deletions_all;
                    """)
            }
            try db.execute("""
                DELETE FROM \(rows) WHERE EXISTS (
                    SELECT 1 FROM journal_deletions d WHERE d.tenant = \(rows).tenant AND \(rows).id <= d.through_id);
                DELETE FROM journal_deletions;
                """)
        }
    }
}
