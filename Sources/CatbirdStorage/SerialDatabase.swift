import CSQLite
import Foundation

/// A connection with exactly one user at a time: the owner of a ``Database`` that several
/// threads share (GRDB's "one owner per connection").
///
/// A server typically keeps two: the write connection (its writers take turns on it) and a
/// read-only connection for its own queries.
public final class SerialDatabase: Sendable {
    /// `nonisolated(unsafe)`: used only by the thread holding the turn (``turns``), between its
    /// ``Turns/take()`` and ``Turns/give()``, and by ``close()`` likewise; `Turns` orders those uses.
    nonisolated(unsafe) private let database: Database
    /// Who uses the connection next: first come, first served.
    private let turns = Turns()
    /// Where this connection's environmental failures go, and its successful writes.
    private let faults: StorageFaults?
    /// Whether each ``use(_:)`` first checks that the file is still at its path and whole.
    private let checksFile: Bool
    /// Whether each ``use(_:)`` first checks that the file was not truncated (read connections).
    private let checksTruncation: Bool

    /// Takes ownership of `database`; nothing else may use it afterwards.
    /// - Parameters:
    ///   - faults: told of every environmental `SQLiteError` a ``use(_:)`` throws,
    ///     and cleared by every ``use(_:)`` that changed rows without throwing.
    ///   - checksFile: each ``use(_:)`` first runs `faults`' ``StorageFaults/checkFile()`` and
    ///     throws its error, so nothing is written to a database file deleted, moved, replaced
    ///     or truncated under the server (for the write connection: reads of the open file stay true).
    public convenience init(_ database: consuming sending Database, faults: StorageFaults? = nil, checksFile: Bool = false) {
        self.init(database, faults: faults, checksFile: checksFile, checksTruncation: false)
    }

    /// ``init(_:faults:checksFile:)`` with `checksTruncation`: each ``use(_:)`` first runs
    /// `faults`' ``StorageFaults/checkTruncation()`` (for read connections; implied by `checksFile`).
    public init(_ database: consuming sending Database, faults: StorageFaults?, checksFile: Bool, checksTruncation: Bool) {
        self.database = database
        self.faults = faults
        self.checksFile = checksFile
        self.checksTruncation = checksTruncation
    }

    /// Runs `body` with the connection, blocking while another thread uses it. Threads get
    /// the connection in the order they asked for it: one that uses it again and again (the
    /// journal writer's rounds) asks again behind those already waiting, and waits for them
    /// only, not for those that come after. `Mutex` is not fair: the writer, back for its next
    /// round within microseconds, took the connection before a control change that had waited
    /// for the whole last round was even scheduled, so that change waited for several rounds
    /// (tester finding T15A-F2).
    /// - Throws: whatever `body` throws.
    public func use<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        turns.take()
        return try used(body)
    }

    /// Runs `body` with the connection during the caller's turn (taken), then gives the turn
    /// back: the file checks and fault records of ``use(_:)``.
    private func used<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        defer { turns.give() }
        guard let faults else { return try body(database) }
        if checksFile {
            try faults.checkFile()
        } else if checksTruncation {
            try faults.checkTruncation()
        }
        let changesBefore = database.totalChanges
        do {
            let result = try body(database)
            if database.totalChanges != changesBefore { faults.clear() }
            return result
        } catch let error as SQLiteError {
            faults.record(error)
            throw error
        }
    }

    /// Whether another thread waits for the connection (in ``use(_:)``), without waiting itself:
    /// a moment's view (tests use it to know a thread is blocked in ``use(_:)``).
    public var othersWaiting: Bool { turns.waiting.load(ordering: .relaxed) > 0 }

    /// Runs `body` as ``use(_:)`` does, with the wait for the connection counted against its
    /// busy timeout: whatever of ``Database/busyTimeout`` (5 s) the wait left, at least
    /// `floor`, is what `body`'s statements wait for another connection's lock
    /// (``Database/withBusyTimeout(_:_:)``). For a control change, which answers 503 "the
    /// database is busy" when it fails so: while another process held the write lock, an
    /// `update` queued behind the journal writer's 5-second wait for that lock, then waited 5 s
    /// itself, and answered after about 10 s (tester note T15A-5). With this, its 503 comes
    /// after about 5 s wherever the wait was spent.
    ///
    /// `since`: when the wait began, for a control change its request's arrival, so that its
    /// wait in the control lane's queue counts too (tester finding tester44b-F3: changes queued
    /// behind one that waited out another process's lock each began their 5 s when their turn
    /// came, and answered 503 after 10 s, 15 s …, or were made after their client had given up
    /// at 5 s). One whose 5 s are over when its turn comes tries once without waiting (1 ms):
    /// made at once when nothing holds the lock, else refused.
    /// - Throws: whatever `body` throws.
    ///
    /// The wait for the connection itself ends there too, ``turnFloor`` after the call at the
    /// earliest: a change whose 5 s are over while others hold or await the connection is
    /// refused with `SQLITE_BUSY` rather than waiting out each of their waits in turn (tester
    /// finding tester45a-F1: 19 s behind six other tenants' changes).
    public func useWithinBusyTimeout<T: Sendable>(
        since start: ContinuousClock.Instant = .now, floor: Duration = .milliseconds(100), _ body: (Database) throws -> T
    ) throws -> T {
        let deadline = max(start + Database.busyTimeout, ContinuousClock.now + Self.turnFloor)
        guard turns.take(until: deadline) else {
            let busy = SQLiteError(
                code: SQLITE_BUSY, message: "the write connection stayed in use for the change's \(Database.busyTimeout) (other changes waiting for another process's lock)")
            faults?.recordBusy(busy)
            throw busy
        }
        do {
            return try used { database in
                let left = Database.busyTimeout - (ContinuousClock.now - start)
                return try database.withBusyTimeout(left > .zero ? max(left, floor) : .milliseconds(1)) { try body(database) }
            }
        } catch let error as SQLiteError {
            faults?.recordBusy(error)  // only a busy or locked error: health says so (tester46b-F6)
            throw error
        }
    }

    /// How long ``useWithinBusyTimeout(since:floor:_:)`` waits for the connection at least,
    /// its 5 s over or not: 250 ms, several journal rounds' worth, so that a change that waited
    /// long for a control thread or its tenant's earlier work (a large `removeAll`) is not
    /// refused for the writer's commit in progress; short, since a change that waited that
    /// long for a thread was most likely behind others waiting out another process's lock.
    static let turnFloor = Duration.milliseconds(250)

    /// Closes the connection once every current user is done.
    public func close() {
        turns.take()
        defer { turns.give() }
        database.close()
    }

    /// ``close()`` after copying every change in the WAL into the file (a `TRUNCATE`
    /// checkpoint), through the descriptors the connection holds: for a file moved away from
    /// its path, whose checkpoint at close SQLite skips (`SQLITE_FCNTL_HAS_MOVED`), so that
    /// the changes reach the file where it went even when its `-wal` lost its name too (`mv`
    /// then `rm <db>-*`: tester finding tester55b-F10, every change since the last checkpoint
    /// was lost). The file checks of ``use(_:)`` are skipped: they refuse a moved file.
    /// - Returns: nil when the checkpoint copied every frame; else why not (busy, or its error).
    public func closeCheckpointingThroughOpenFile() -> String? {
        turns.take()
        defer { turns.give() }
        let outcome: String?
        do {
            let rows = try database.query("PRAGMA wal_checkpoint(TRUNCATE)")
            outcome = rows.first?[0].intValue == 0 ? nil : "the checkpoint was busy"
        } catch {
            outcome = "\(error)"
        }
        database.close()
        return outcome
    }

    /// ``close()`` without the checkpoint on close (``Database/keepWALOnClose()``): the `-wal`
    /// and `-shm` stay beside the file. When SQLite refuses that setting, the connection is left
    /// open (closing it would checkpoint) and the error thrown: the process ending drops it as a
    /// `kill -9` would, with the `-wal` kept.
    /// - Throws: `SQLiteError` from ``Database/keepWALOnClose()``.
    public func closeKeepingWAL() throws(SQLiteError) {
        turns.take()
        defer { turns.give() }
        try database.keepWALOnClose()
        database.close()
    }
}
