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
/// nothing ends. Failing checkpoints (the file itself no longer writable, while the `-wal`
/// still is) are kept apart as well: commits go through meanwhile, so only a checkpoint that
/// succeeds ends them (``recordCheckpoint(_:)``).
public final class StorageFaults: Sendable {
    /// One fault: what it means for a user, SQLite's own line, and since when it has lasted.
    public struct Fault: Sendable, Equatable {
        /// What kind of fault it is, which says what ends it (see ``StorageFaults``).
        public enum Kind: Sendable, Equatable {
            /// The path no longer names the open file (deleted, moved, replaced), or the file
            /// was truncated (``checkFile()``).
            case file
            /// A write failed (a full disk, a read-only file, an I/O error): ended by a commit.
            case writing
            /// Damaged pages: ended by a passing `PRAGMA quick_check` only.
            case corruption
            /// The `-wal` gone from its path (``watch(_:)``): writes still work, but a crash
            /// would lose them. Never ended.
            case walGone
            /// The `-shm` gone from its path (``watch(_:)``): writes still work, but another
            /// program opening the file can corrupt it. Never ended.
            case shmGone
            /// Checkpoints fail (``recordCheckpoint(_:)``): commits still go to the `-wal`,
            /// which grows, but nothing reaches the file. Ended by a checkpoint that succeeds.
            case checkpoint
        }

        /// What kind of fault this is.
        public let kind: Kind
        /// ``SQLiteError/environmentalReason``, e.g. `the disk holding the database is full`.
        public let reason: String
        /// The failing error in full (`SQLiteError.description`), or what `PRAGMA quick_check`
        /// found when a re-check failed.
        public let detail: String
        /// When the first failure of this run of failures happened.
        public let since: Date
    }

    /// What ``recordCheckpoint(_:)`` changed, for a log line.
    public enum CheckpointChange: Sendable, Equatable {
        /// The first failed checkpoint of a run of failures.
        case began(Fault)
        /// A checkpoint succeeded after failures.
        case ended
    }

    /// One kind of background probe's pace (``recheckWriting(on:notMoreOftenThan:)``,
    /// ``recheckCheckpoint(on:notMoreOftenThan:)``).
    private struct Probe {
        /// When the last one started; nil before the first.
        var last: ContinuousClock.Instant?
        /// One is running (one at a time).
        var running = false
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
        /// The `-shm` deleted or replaced under the server (``watch(_:)``): never ended.
        var shmGone: Fault?
        /// Damaged pages: ended by a passing `PRAGMA quick_check` only.
        var corruption: Fault?
        /// Checkpoints fail: ended by one that succeeds.
        var checkpoint: Fault?
        /// When the last re-check of `corruption` started; nil before the first.
        var lastCheck: ContinuousClock.Instant?
        /// A re-check is running (one at a time).
        var checking = false
        /// The write probe of `writing` (``recheckWriting(on:notMoreOftenThan:)``).
        var writeProbe = Probe()
        /// The checkpoint probe of `checkpoint` (``recheckCheckpoint(on:notMoreOftenThan:)``).
        var checkpointProbe = Probe()
    }

    private let state = Mutex(State())
    /// The lock on the database file, whose path ``checkFile()`` compares; nil: not checked.
    private let file: DatabaseFileLock?
    /// The `-wal` and `-shm` as the server opened them, whose `-wal` ``checkFile()`` looks for
    /// (``watch(_:)``); nil until then.
    private let companions = Mutex<DatabaseCompanions?>(nil)

    /// - Parameter file: the database file's lock, for ``checkFile()``.
    /// - Parameter noticed: told once of each `-wal` or `-shm` found gone (``watch(_:)``), for a
    ///   log line: health alone said so (tester finding tester55b-F6).
    public init(file: DatabaseFileLock? = nil, noticed: @escaping @Sendable (Fault) -> Void = { _ in }) {
        self.file = file
        self.noticed = noticed
    }

    /// Told once of each `-wal` or `-shm` found gone.
    private let noticed: @Sendable (Fault) -> Void

    /// The fault now: a truncated file first, then a moved one, then corruption, then a gone
    /// `-shm` (the more dangerous of the two: tester finding tester55b-F6) or `-wal`; nil when the
    /// file works as far as anyone knows.
    public var current: Fault? {
        state.withLock { $0.truncated ?? $0.moved ?? $0.corruption ?? $0.shmGone ?? $0.walGone ?? $0.writing ?? $0.checkpoint }
    }

    /// From now on, ``checkFile()`` also checks that the `-wal` and the `-shm` SQLite opened are
    /// still at their paths (``DatabaseCompanions/walGone()``, ``DatabaseCompanions/shmGone()``;
    /// the `-shm`: tester finding tester54c-F1). Deleted (a cleanup step removing `*-wal`) or
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
        guard let companions = companions.withLock({ $0 }) else { return }
        if companions.walGone() { recordGone(\.walGone, .walGone, "-wal", of: companions.databasePath) }
        if companions.shmGone() { recordGone(\.shmGone, .shmGone, "-shm", of: companions.databasePath) }
    }

    /// Records, once and for good, that the companion `name` (`-wal` or `-shm`) of `databasePath` was deleted or replaced.
    private func recordGone(_ field: WritableKeyPath<State, Fault?>, _ kind: Fault.Kind, _ name: String, of databasePath: String) {
        let path = databasePath + name
        let new: Fault? = state.withLock { state in
            guard state[keyPath: field] == nil else { return nil }
            let fault = Fault(
                kind: kind, reason: "the database's \(name) file was deleted or replaced under the running server", detail: path,
                since: Date())
            state[keyPath: field] = fault
            return fault
        }
        if let new { noticed(new) }
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
        Fault(kind: .file, reason: error.environmentalReason ?? error.message, detail: error.description, since: since ?? Date())
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
                    kind: .corruption, reason: reason, detail: error.description, since: state.corruption?.since ?? Date())
            } else {
                state.writing = Fault(kind: .writing, reason: reason, detail: error.description, since: state.writing?.since ?? Date())
            }
        }
    }

    /// Records a write that waited out its whole busy timeout (5 s) for another connection's
    /// lock (a control change answered 503 busy) as a fault of the writing kind, so that health
    /// says so until a write commits again (``clear()``, or ``recheckWriting(on:notMoreOftenThan:)``'s
    /// probe once the lock ends). Busy errors are not recorded by ``record(_:)``: the journal
    /// writer retries them and says so itself; a control change has no retry, and while another
    /// process held the lock every change got 503 but health said ok (tester finding tester46b-F6).
    public func recordBusy(_ error: SQLiteError) {
        guard error.code == SQLITE_BUSY || error.code == SQLITE_LOCKED else { return }
        let reason = "the database is busy: another connection has held its write lock past a change's 5 s wait "
            + "(another process writing, or a long VACUUM); changes are refused with 503 until it ends"
        state.withLock { state in
            state.writing = Fault(kind: .writing, reason: reason, detail: error.description, since: state.writing?.since ?? Date())
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
        probe(\.writeProbe, while: { $0.writing != nil }, notMoreOftenThan: interval) { [self] in
            do {
                try writer.use { db in
                    try db.transaction {
                        let version = try db.query("PRAGMA user_version").first?[0].intValue ?? 0
                        try db.execute("PRAGMA user_version = \(version)")
                    }
                }
                state.withLock { $0.writing = nil }
            } catch {
                // recorded by `use`
            }
        }
    }

    /// Records the outcome of an automatic checkpoint (``Database/checkpointAutomatically(report:)``):
    /// a failure (`error`, when environmental) begins or prolongs a fault of its own, which a
    /// commit does not end (commits go on into the `-wal` while nothing reaches the file: a
    /// database file made immutable under the server, tester finding tester29b-F3); a success
    /// (nil) ends it.
    /// - Returns: the change, when this began or ended the fault; nil otherwise.
    @discardableResult
    public func recordCheckpoint(_ error: SQLiteError?) -> CheckpointChange? {
        state.withLock { state in
            guard let error else {
                guard state.checkpoint != nil else { return nil }
                state.checkpoint = nil
                return .ended
            }
            guard error.isEnvironmental, let reason = error.environmentalReason else { return nil }
            let began = state.checkpoint == nil
            let fault = Fault(kind: .checkpoint, reason: reason, detail: error.description, since: state.checkpoint?.since ?? Date())
            state.checkpoint = fault
            return began ? .began(fault) : nil
        }
    }

    /// While checkpoints fail (``recordCheckpoint(_:)``) and the file is where it was, tries a
    /// passive checkpoint on `writer` at most once per `interval`, one at a time, on a thread of
    /// its own, and records its outcome (`report`: whether it began or ended the fault): the
    /// automatic checkpoint runs only after a commit, so a server left idle once the file was
    /// writable again would report the fault for good.
    public func recheckCheckpoint(
        on writer: SerialDatabase, notMoreOftenThan interval: Duration, report: @escaping @Sendable (CheckpointChange) -> Void
    ) {
        probe(\.checkpointProbe, while: { $0.checkpoint != nil }, notMoreOftenThan: interval) { [self] in
            // Returned, not thrown: `use` would record a failure as a failed write.
            guard let outcome = try? writer.use({ $0.checkpointPassively() }) else { return }  // moved or truncated: recorded by `use`
            let change: CheckpointChange?
            switch outcome {
            case .done: change = recordCheckpoint(nil)
            case .busy: change = nil
            case let .failed(error): change = recordCheckpoint(error)
            }
            guard let change else { return }
            report(change)
        }
    }

    /// Runs `body` on a thread of its own when `active` holds for the state, the file is where
    /// it was, and the probe `which` is neither running nor ran less than `interval` ago.
    private func probe(
        _ which: WritableKeyPath<State, Probe> & Sendable, while active: (State) -> Bool, notMoreOftenThan interval: Duration,
        _ body: @escaping @Sendable () -> Void
    ) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            guard active(state), state.moved == nil, state.truncated == nil, !state[keyPath: which].running else { return false }
            if let last = state[keyPath: which].last, now - last < interval { return false }
            state[keyPath: which] = Probe(last: now, running: true)
            return true
        }
        guard due else { return }
        Thread.detachNewThread { [self] in
            body()
            state.withLock { $0[keyPath: which].running = false }
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
                    kind: .corruption, reason: found.reason, detail: "PRAGMA quick_check: " + problems.joined(separator: "; "),
                    since: found.since)
            }
        }
    }
}
