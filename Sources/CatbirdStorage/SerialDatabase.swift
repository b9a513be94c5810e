import Foundation
import Synchronization

/// A connection with exactly one user at a time: the owner of a ``Database`` that several
/// threads share (GRDB's "one owner per connection").
///
/// A server typically keeps two: the write connection (its writers take turns on it) and a
/// read-only connection for its own queries.
public final class SerialDatabase: Sendable {
    private let database: Mutex<Database>
    /// Threads blocked in ``use(_:)`` until the connection is free (``useAfterWaiting(patience:_:)``).
    private let waiting = Atomic<Int>(0)
    /// Turns ``use(_:)`` has given so far (``useAfterWaiting(patience:_:)``).
    private let granted = Atomic<Int>(0)
    /// Where this connection's environmental failures go, and its successful writes.
    private let faults: StorageFaults?
    /// Whether each ``use(_:)`` first checks that the file is still at its path.
    private let checksFile: Bool

    /// Takes ownership of `database`; nothing else may use it afterwards.
    /// - Parameters:
    ///   - faults: told of every environmental `SQLiteError` a ``use(_:)`` throws,
    ///     and cleared by every ``use(_:)`` that changed rows without throwing.
    ///   - checksFile: each ``use(_:)`` first runs `faults`' ``StorageFaults/checkFile()`` and
    ///     throws its error, so nothing is written to a database file deleted, moved or replaced
    ///     under the server (for the write connection: reads of the open file stay true).
    public init(_ database: consuming sending Database, faults: StorageFaults? = nil, checksFile: Bool = false) {
        self.database = Mutex(database)
        self.faults = faults
        self.checksFile = checksFile
    }

    /// Runs `body` with the connection, blocking while another thread uses it.
    /// - Throws: whatever `body` throws.
    public func use<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        waiting.add(1, ordering: .relaxed)
        guard let faults else {
            return try database.withLock { database throws -> T in
                waiting.subtract(1, ordering: .relaxed)
                granted.add(1, ordering: .relaxed)
                return try body(database)
            }
        }
        return try database.withLock { database throws -> T in
            waiting.subtract(1, ordering: .relaxed)
            granted.add(1, ordering: .relaxed)
            if checksFile { try faults.checkFile() }
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
    }

    /// Like ``use(_:)``, but first lets the threads already waiting for the connection have it,
    /// waiting at most `patience` for them: for a user that takes the connection again and
    /// again (the journal writer's rounds). `Mutex` is not fair: the writer, back for its next
    /// round within microseconds, took the connection before a control change that had waited
    /// for the whole last round was even scheduled, so that change waited for several rounds.
    /// Only the threads waiting when it is called go first, not those that come after: a
    /// steady stream of control changes does not hold the writer for `patience` every round
    /// (review).
    /// - Parameter patience: the longest wait for the others before taking a turn anyway.
    /// - Throws: whatever `body` throws.
    public func useAfterWaiting<T: Sendable>(patience: Duration, _ body: (Database) throws -> T) throws -> T {
        let before = granted.load(ordering: .relaxed) + waiting.load(ordering: .relaxed)
        if granted.load(ordering: .relaxed) < before {
            let deadline = ContinuousClock.now.advanced(by: patience)
            while granted.load(ordering: .relaxed) < before && ContinuousClock.now < deadline { usleep(100) }
        }
        return try use(body)
    }

    /// Runs `body` as ``use(_:)`` does, with the wait for the connection counted against its
    /// busy timeout: whatever of ``Database/busyTimeout`` (5 s) the wait left, at least
    /// `floor`, is what `body`'s statements wait for another connection's lock
    /// (``Database/withBusyTimeout(_:_:)``). For a control change, which answers 503 "the
    /// database is busy" when it fails so: while another process held the write lock, an
    /// `update` queued behind the journal writer's 5-second wait for that lock, then waited 5 s
    /// itself, and answered after about 10 s (tester note T15A-5). With this, its 503 comes
    /// after about 5 s wherever the wait was spent.
    /// - Throws: whatever `body` throws.
    public func useWithinBusyTimeout<T: Sendable>(
        floor: Duration = .milliseconds(100), _ body: (Database) throws -> T
    ) throws -> T {
        let start = ContinuousClock.now
        return try use { database in
            let left = max(Database.busyTimeout - (ContinuousClock.now - start), floor)
            return try database.withBusyTimeout(left) { try body(database) }
        }
    }

    /// Closes the connection once every current user is done.
    public func close() {
        database.withLock { $0.close() }
    }
}
