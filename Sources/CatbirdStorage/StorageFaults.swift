import CSQLite
import Foundation
import Synchronization

/// What is wrong with the database file right now, as the connections that use it have found:
/// the latest environmental failure (a full disk, a read-only or vanished file, a disk I/O
/// error, corruption; ``SQLiteError/isEnvironmental`` less busy and locked, which pass). A
/// server reports it on its health route.
///
/// Fed by ``SerialDatabase/use(_:)`` of the connections given it: a failure records, a call
/// that changed rows without failing clears a fault of the writing kind (a commit went
/// through, so the file is writable again). Corruption (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) is
/// kept apart: a commit proves nothing about the damaged pages (it rarely touches them), so it
/// stays until ``recheckCorruption(on:notMoreOftenThan:)`` finds the file whole again, or the
/// process ends (a restart refuses a corrupt file; README.md#storage-faults). A database file
/// deleted, moved or replaced under the server is kept apart too: ``checkFile()`` records and
/// ends it, by looking at the file, not at commits; and so is one truncated under it, which
/// nothing ends.
public final class StorageFaults: Sendable {
    /// One fault: what it means for a user, SQLite's own line, and since when it has lasted.
    public struct Fault: Sendable, Equatable {
        /// ``SQLiteError/environmentalReason``, e.g. `the disk holding the database is full`.
        public let reason: String
        /// The failing error in full (`SQLiteError.description`), or what `PRAGMA quick_check`
        /// found when a re-check failed.
        public let detail: String
        /// When the first failure of this run of failures happened.
        public let since: Date
        /// Whether the file is corrupt (not cleared by a commit; see ``StorageFaults``).
        public let isCorruption: Bool
        /// Whether this is the `-wal` gone from its path (``watch(_:)``): writes still work,
        /// but a crash would lose them.
        public var isWALGone = false
    }

    private struct State {
        /// The path no longer names the open file (``DatabaseFileLock/moved()``): ended by a
        /// ``checkFile()`` that finds it there again.
        var moved: Fault?
        /// The file is shorter than it was (``DatabaseFileLock/truncated()``): never ended.
        var truncated: Fault?
        /// A full disk, a read-only file, an I/O error: ended by the next commit.
        var writing: Fault?
        /// The `-wal` deleted or replaced under the server (``watch(_:)``): never ended.
        var walGone: Fault?
        /// Damaged pages: ended by a passing `PRAGMA quick_check` only.
        var corruption: Fault?
        /// When the last re-check of `corruption` started; nil before the first.
        var lastCheck: ContinuousClock.Instant?
        /// A re-check is running (one at a time).
        var checking = false
        /// When the last write probe of `writing` started (``recheckWriting(on:notMoreOftenThan:)``); nil before the first.
        var lastWriteProbe: ContinuousClock.Instant?
        /// A write probe is running (one at a time).
        var probingWrites = false
    }

    private let state = Mutex(State())
    /// The lock on the database file, whose path ``checkFile()`` compares; nil: not checked.
    private let file: DatabaseFileLock?
    /// The `-wal` and `-shm` as the server opened them, whose `-wal` ``checkFile()`` looks for
    /// (``watch(_:)``); nil until then.
    private let companions = Mutex<DatabaseCompanions?>(nil)

    /// - Parameter file: the database file's lock, for ``checkFile()``.
    public init(file: DatabaseFileLock? = nil) {
        self.file = file
    }

    /// The fault now: a truncated file first, then a moved one, then corruption; nil when the
    /// file works as far as anyone knows.
    public var current: Fault? {
        state.withLock { $0.truncated ?? $0.moved ?? $0.corruption ?? $0.walGone ?? $0.writing }
    }

    /// From now on, ``checkFile()`` also checks that the `-wal` SQLite opened is still at its
    /// path (``DatabaseCompanions/walGone()``). Deleted (a cleanup step removing `*-wal`) or
    /// replaced, it is recorded for good as a fault health reports (tester finding
    /// tester29b-F2: not detected, health `ok`, and a crash then lost every change since the
    /// last checkpoint). Writes are not refused: SQLite goes on writing to the `-wal` it has
    /// open, and a stop copies it into the file, so nothing is lost unless the process dies.
    public func watch(_ companions: DatabaseCompanions) {
        self.companions.withLock { $0 = companions }
    }

    /// Checks that the database path still names the locked file (``DatabaseFileLock/moved()``:
    /// deleted, moved away, replaced), recording the fault when it does not and ending it when
    /// it does again (the file put back); and that the file is not shorter than it was
    /// (``DatabaseFileLock/truncated()``), a fault recorded for good. The write connection calls
    /// it before each use (``SerialDatabase``), and health before answering (tester finding
    /// T13-F8: a control change written to a deleted file got 201 and was lost at exit;
    /// tester21b-F13: the same after `: > catbird.sqlite`).
    /// - Throws: the `SQLiteError` with ``DatabaseFileLock/truncatedCode`` when the file was
    ///   truncated, else with ``DatabaseFileLock/movedCode`` when it moved.
    public func checkFile() throws(SQLiteError) {
        guard let file else { return }
        let moved = file.moved()
        state.withLock { state in state.moved = moved.map { Self.fault($0, since: state.moved?.since) } }
        try checkTruncation()
        if let moved { throw moved }
        if let wal = companions.withLock({ $0.flatMap { $0.walGone() ? $0.databasePath + "-wal" : nil } }) {
            state.withLock { state in
                guard state.walGone == nil else { return }
                var fault = Fault(
                    reason: "the database's -wal file was deleted or replaced under the running server", detail: wal,
                    since: Date(), isCorruption: false)
                fault.isWALGone = true
                state.walGone = fault
            }
        }
    }

    /// The truncation half of ``checkFile()``, for the read connections, which read on in a file
    /// moved away but not in one truncated (``DatabaseFileLock/truncated()``): records the fault
    /// and throws it. Checked before each read, not only after one fails: the first read of a
    /// connection that has not read yet deletes the `-wal` beside a file it finds empty, as
    /// SQLite does for any WAL beside an empty database (tester21b-F13: a journal read after
    /// `: > catbird.sqlite` deleted the 4 MB `-wal`, the last copy of the recent changes).
    /// - Throws: the `SQLiteError` with ``DatabaseFileLock/truncatedCode`` when the file was truncated.
    public func checkTruncation() throws(SQLiteError) {
        guard let truncated = file?.truncated() else { return }
        state.withLock { state in
            if state.truncated == nil { state.truncated = Self.fault(truncated, since: nil) }
        }
        throw truncated
    }

    /// A fault of the file itself (moved or truncated) from `error`, lasting since `since` or now.
    private static func fault(_ error: SQLiteError, since: Date?) -> Fault {
        Fault(reason: error.environmentalReason ?? error.message, detail: error.description, since: since ?? Date(), isCorruption: false)
    }

    /// Records `error` when it is a fault of the file's environment (not busy or locked).
    /// Keeps the first failure's time while failures of the same kind follow one another.
    public func record(_ error: SQLiteError) {
        guard error.isEnvironmental, error.code != SQLITE_BUSY, error.code != SQLITE_LOCKED,
              let reason = error.environmentalReason else { return }
        let isCorruption = error.code == SQLITE_CORRUPT || error.code == SQLITE_NOTADB
        state.withLock { state in
            if isCorruption {
                state.corruption = Fault(
                    reason: reason, detail: error.description, since: state.corruption?.since ?? Date(), isCorruption: true)
            } else {
                state.writing = Fault(
                    reason: reason, detail: error.description, since: state.writing?.since ?? Date(), isCorruption: false)
            }
        }
    }

    /// Forgets a fault of the writing kind: a write has just committed. A corruption stays.
    public func clear() {
        state.withLock { $0.writing = nil }
    }

    /// While a fault of the writing kind is recorded (a full disk, a read-only file, an I/O
    /// error) and the file is where it was, tries one write on `writer` at most once per
    /// `interval`, one at a time, on a thread of its own, so the caller never waits for the
    /// write connection: `PRAGMA user_version` set to its own value in a write transaction,
    /// which rewrites the file's first page whatever the value (SQLite's meta update always
    /// marks the page changed, unlike an UPDATE to the same row, whose page it leaves alone), so
    /// its commit writes a WAL frame, which needs the disk's space and the file's write access.
    /// Its commit ends the fault; its failure keeps it (``SerialDatabase/use(_:)`` records it). For a fault that only a control change met (tester finding tester29b-F1): the
    /// 503 left nothing queued, so no write came by itself once the space was freed, and health
    /// stayed 503 for good on an idle server (one its readiness probe took out of service).
    /// Does nothing when no such fault is recorded.
    public func recheckWriting(on writer: SerialDatabase, notMoreOftenThan interval: Duration) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            guard state.writing != nil, state.moved == nil, state.truncated == nil, !state.probingWrites else { return false }
            if let last = state.lastWriteProbe, now - last < interval { return false }
            state.probingWrites = true
            state.lastWriteProbe = now
            return true
        }
        guard due else { return }
        Thread.detachNewThread { [self] in
            let committed: Bool
            do {
                try writer.use { db in
                    try db.transaction {
                        let version = try db.query("PRAGMA user_version").first?[0].intValue ?? 0
                        try db.execute("PRAGMA user_version = \(version)")
                    }
                }
                committed = true
            } catch {
                committed = false
            }
            state.withLock { state in
                state.probingWrites = false
                if committed { state.writing = nil }
            }
        }
    }

    /// While a corruption is recorded, runs `PRAGMA quick_check(5)`
    /// (<https://www.sqlite.org/pragma.html#pragma_quick_check>: every page read, the b-trees'
    /// structure checked; about 0.3 s per 200 MB) on one of `reader`'s connections, at most
    /// once per `interval` and one at a time (other callers return at once), and forgets the
    /// corruption when the check answers `ok`. A check that fails keeps the fault with what
    /// the check found as its detail; one that cannot read a page records that error.
    /// Does nothing when no corruption is recorded.
    public func recheckCorruption(on reader: DatabasePool, notMoreOftenThan interval: Duration) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            guard state.corruption != nil, !state.checking else { return false }
            if let last = state.lastCheck, now - last < interval { return false }
            state.checking = true
            state.lastCheck = now
            return true
        }
        guard due else { return }
        let problems = try? reader.use { db in try db.query("PRAGMA quick_check(5)").compactMap { $0[0].stringValue } }
        state.withLock { state in
            state.checking = false
            guard let problems, let found = state.corruption else { return }  // unreadable: recorded by `use`
            if problems == ["ok"] {
                state.corruption = nil
            } else {
                state.corruption = Fault(
                    reason: found.reason, detail: "PRAGMA quick_check: " + problems.joined(separator: "; "), since: found.since,
                    isCorruption: true)
            }
        }
    }
}
