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
/// 5.6 s as one statement). After each chunk the thread leaves the connection alone for as long
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
    static let floorSQL = "coalesce((SELECT through_id FROM journal_deletions WHERE tenant = ?), 0)"

    private let database: SerialDatabase
    private let log: Logger
    /// The pending floors by tenant, as committed (for readers that cannot join the table).
    private let floors: Mutex<[TenantID: Int64]>
    private let wake = DispatchSemaphore(value: 0)
    private let state = Mutex<(running: Bool, stopped: Bool)>((false, false))
    private let finished = DispatchSemaphore(value: 0)

    /// Loads the pending deletions (an earlier run may have stopped before finishing them).
    /// - Throws: `SQLiteError`.
    public init(database: SerialDatabase, log: Logger) throws {
        self.database = database
        self.log = log
        let rows = try database.use { try $0.query("SELECT tenant, through_id FROM journal_deletions") }
        floors = Mutex(Dictionary(
            rows.map { (TenantID($0[0].stringValue ?? ""), $0[1].intValue ?? 0) }, uniquingKeysWith: max))
    }

    /// The highest journal id of `tenant` hidden from readers (0: none).
    public func hiddenThrough(_ tenant: TenantID) -> Int64 {
        floors.withLock { $0[tenant] ?? 0 }
    }

    /// Registers `catbird_journal_floor(tenant)` on `connection`: the highest journal id of
    /// `tenant` hidden from readers (0: none), for the SQL route's `requests` view.
    /// - Throws: `SQLiteError` when SQLite refuses the registration.
    public func registerFloorFunction(on connection: Database) throws(SQLiteError) {
        try connection.createFunction("catbird_journal_floor", argumentCount: 1, deterministic: false) { [self] call throws(SQLFunctionError) in
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
        floors.withLock { $0[tenant] = max($0[tenant] ?? 0, throughID) }
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
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "catbird-journal-deletions"
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
                log.warning("background journal deletion failed (retrying in 1 s): \(error)")
                _ = wake.wait(timeout: .now() + 1)
            }
        }
    }

    /// Deletes one chunk of the first pending deletion, or finishes it.
    /// - Returns: false when nothing is pending.
    private func deleteOneChunk() throws -> Bool {
        let finished: (TenantID, Int64)?? = try database.use { db in
            guard let row = try db.query("SELECT tenant, through_id FROM journal_deletions LIMIT 1").first else {
                return .none
            }
            let tenant = row[0].stringValue ?? ""
            let through = row[1].intValue ?? 0
            try db.run(
                "DELETE FROM journal_rows WHERE id IN (SELECT id FROM journal_rows WHERE tenant = ? AND id <= ? ORDER BY id LIMIT ?)",
                [.text(tenant), .integer(through), .integer(Int64(Self.chunkSize))])
            guard db.changes == 0 else { return .some(nil) }
            try db.run("DELETE FROM journal_deletions WHERE tenant = ? AND through_id = ?", [.text(tenant), .integer(through)])
            return .some((TenantID(tenant), through))
        }
        switch finished {
        case .none:
            return false
        case .some(nil):
            return true
        case .some(let done?):
            floors.withLock { floors in
                if floors[done.0] == done.1 { floors[done.0] = nil }
            }
            return true
        }
    }

    /// How many deletions are pending in `db` (tenants dropped or journals cleared whose rows
    /// are not all deleted yet); 0 on a database without the table (a new file).
    /// - Throws: `SQLiteError`.
    public static func pendingCount(_ db: Database) throws -> Int {
        let exists = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'journal_deletions'")
        guard !exists.isEmpty else { return 0 }
        return Int(try db.query("SELECT count(*) FROM journal_deletions").first?[0].intValue ?? 0)
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
        guard try !db.query("SELECT 1 FROM journal_deletions LIMIT 1").isEmpty else { return }
        try db.transaction {
            try db.execute("""
                DELETE FROM \(rows) WHERE EXISTS (
                    SELECT 1 FROM journal_deletions d WHERE d.tenant = \(rows).tenant AND \(rows).id <= d.through_id);
                DELETE FROM journal_deletions;
                """)
        }
    }
}
