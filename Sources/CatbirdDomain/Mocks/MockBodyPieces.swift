import CatbirdStorage
import Dispatch
import Foundation
import Synchronization

/// Mock response bodies longer than one piece (``pieceSize``), written into `mock_body_pieces`
/// one piece per transaction before the mock's row, which points at them, is committed
/// (migrations/0014_mock_bodies_in_pieces.sql, docs/schema.md#mock-bodies-in-pieces).
///
/// SQLite has one write lock per file and the server one write connection: a 30 MiB body
/// written in the transaction that adds its mock held both for 0.4-1 s, and every other
/// tenant's mock change and the journal writer (so every count) waited for all of it (tester
/// finding tester22b-F7). Between two pieces the connection goes to whoever waits for it
/// (``SerialDatabase/use(_:)`` is first come, first served), so they wait for one piece at most.
/// After each piece the WAL is copied into the file (a passive checkpoint) in a turn of its
/// own: left to SQLite's automatic checkpoint, every eighth piece's commit also copied the
/// 4 MiB of WAL the pieces before it had filled, and that commit held the connection 30-50 ms
/// rather than 3-7 (``checkpoint()``).
///
/// Pieces no row points at are deleted a piece per transaction too (``sweep()``): those of a
/// mock removed or replaced, of a write that failed or was cut short (a `kill -9`), at start-up
/// (``init(database:)``) and after each change that may leave some, again while they fail
/// (``retryDelays``). A body being written is
/// never swept: its id is in ``State/writing`` from before its first piece until its row is
/// committed or the write has failed.
final class MockBodyPieces: Sendable {
    /// The size of a piece: 512 KiB. A body of at most this is held by its row, written with it.
    /// Writing a piece (or deleting one: Debian's SQLite overwrites what it deletes), and then
    /// checkpointing it, took 3-7 ms each on an idle 2-core machine (1 MiB: 8-11 ms; 256 KiB:
    /// as long per byte and twice the turns), well within the 50 ms another tenant's change may wait.
    static let pieceSize = 512 << 10

    private struct State {
        /// The next body id: above every id in the file when it was opened.
        var nextID: Int64
        /// Bodies being written whose rows are not committed yet.
        var writing: Set<Int64> = []
        /// A sweep is queued and has not started.
        var sweepQueued = false
        /// ``stop()`` was called: no sweep starts any more.
        var stopped = false
        /// ``abandonWrites()`` was called: a write gives up before its next piece or its row.
        var abandoning = false
        /// How long after a failed sweep the next is tried (``retryDelays``), doubling while
        /// sweeps fail; back to the first after one succeeds.
        var retryDelay = MockBodyPieces.retryDelays.lowerBound
    }

    /// The delay before a failed sweep is tried again: 1 s, doubling while it fails, at most
    /// 8 s. A sweep fails while another process holds the write lock or the disk is full, the
    /// moments that make large updates fail and leave their pieces (tester finding tester28a-F7:
    /// the sweep right after such a failure met the still-held lock, was never tried again, and
    /// 13-15 MB of pieces stayed in the file until another large change or a restart).
    static let retryDelays: ClosedRange<Duration> = .seconds(1) ... .seconds(8)

    private let database: SerialDatabase
    private let state: Mutex<State>
    private let sweeps = DispatchQueue(label: "catbird.mock-body-sweep", qos: .utility)
    /// How many bodies' pieces the sweep at start-up deleted (left by a write cut short, or by a
    /// server stopped before its sweep had finished).
    let sweptAtStart: Int

    /// Deletes every piece no row points at (nothing else uses the file yet) and sets the next id.
    /// - Throws: `SQLiteError`.
    init(database: SerialDatabase) throws {
        self.database = database
        let (swept, highest) = try database.use { db in
            let unused = try Self.unusedBodies(db)
            for id in unused { try db.run("DELETE FROM mock_body_pieces WHERE body_id = ?", [.integer(id)]) }
            let highest = try db.query("""
                SELECT max(coalesce((SELECT max(body_id) FROM mock_body_pieces), 0),
                           coalesce((SELECT max(response_body_id) FROM mock_rows), 0))
                """).first?[0].intValue ?? 0
            return (unused.count, highest)
        }
        sweptAtStart = swept
        state = Mutex(State(nextID: highest + 1))
    }

    /// Whether a body of `size` bytes is written in pieces (else its row holds it).
    static func isWrittenInPieces(size: Int) -> Bool { size > pieceSize }

    /// Writes `body` in pieces, each in its own transaction on the write connection, then runs
    /// `commit` with the body's id (which commits the row pointing at it) and returns what it
    /// returns. When a piece's write or `commit` throws, the pieces written are left to the
    /// sweep (queued at once) and the error rethrown: no row points at them. After
    /// ``abandonWrites()`` it gives up before its next piece or before `commit`, likewise.
    /// - Throws: `SQLiteError` from a piece's write, what `commit` throws, or
    ///   ``MockWriteAbandoned`` once the server is stopping (no row committed).
    func writing<T: Sendable>(_ body: [UInt8], commit: (Int64) throws -> T) throws -> T {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.writing.insert(state.nextID)
            return state.nextID
        }
        do {
            var piece: Int64 = 0
            var start = body.startIndex
            while start < body.endIndex {
                try checkNotAbandoned()
                let end = body.index(start, offsetBy: Self.pieceSize, limitedBy: body.endIndex) ?? body.endIndex
                let bytes = Array(body[start..<end])
                try database.useWithinBusyTimeout { db in
                    try db.run(
                        "INSERT INTO mock_body_pieces (body_id, piece, bytes) VALUES (?, ?, ?)",
                        [.integer(id), .integer(piece), .blob(bytes)])
                }
                checkpoint()
                piece += 1
                start = end
            }
            try checkNotAbandoned()
            let result = try commit(id)
            state.withLock { _ = $0.writing.remove(id) }
            return result
        } catch {
            state.withLock { _ = $0.writing.remove(id) }
            queueSweep()
            throw error
        }
    }

    /// Queues a sweep of the pieces no row points at, on a thread of its own, after `delay`;
    /// nothing when one is queued already or after ``stop()``.
    func queueSweep(after delay: Duration = .zero) {
        let queue = state.withLock { state in
            defer { state.sweepQueued = true }
            return !state.sweepQueued && !state.stopped
        }
        guard queue else { return }
        let nanoseconds = Int(delay / .nanoseconds(1))
        sweeps.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            state.withLock { $0.sweepQueued = false }
            let swept = sweep()
            let retry: Duration? = state.withLock { state in
                guard !swept else {
                    state.retryDelay = Self.retryDelays.lowerBound
                    return nil
                }
                defer { state.retryDelay = min(state.retryDelay * 2, Self.retryDelays.upperBound) }
                return state.retryDelay
            }
            if let retry { queueSweep(after: retry) }
        }
    }

    /// Deletes the pieces of every body no row points at and none is writing, one piece per
    /// transaction; stops early after ``stop()``. A failure (a full disk, a busy file) stops it,
    /// leaving the rest for the next sweep: queued ones try again (``queueSweep(after:)``), and
    /// the next start sweeps too.
    /// - Returns: false when a read or a delete failed.
    @discardableResult
    func sweep() -> Bool {
        guard !state.withLock({ $0.stopped }) else { return true }
        // Read under one turn with the ids being written: a body whose row commits after this
        // turn was being written during it, and one whose first piece comes later is not seen.
        guard let unused = try? database.use({ db in
            let writing = state.withLock { $0.writing }
            return try Self.unusedBodies(db).filter { !writing.contains($0) }
        }) else { return false }
        for id in unused {
            while !state.withLock({ $0.stopped }) {
                let deleted = try? database.useWithinBusyTimeout { db in
                    try db.run(
                        "DELETE FROM mock_body_pieces WHERE body_id = ?1 AND piece = "
                            + "(SELECT min(piece) FROM mock_body_pieces WHERE body_id = ?1)", [.integer(id)])
                    return db.changes
                }
                guard let deleted else { return false }
                guard deleted > 0 else { break }
                checkpoint()
            }
        }
        return true
    }

    /// Copies the WAL's frames not yet in the file into it (`PRAGMA wal_checkpoint(PASSIVE)`:
    /// waits for no reader, <https://www.sqlite.org/pragma.html#pragma_wal_checkpoint>), in a
    /// turn of its own on the write connection: after a piece, about the piece's bytes, so the
    /// automatic checkpoint (every 1000 pages of WAL) seldom has a backlog to copy in one commit.
    /// A failure is left to the automatic checkpoint.
    private func checkpoint() {
        _ = try? database.use { db in try? db.execute("PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// Makes every write in pieces give up before its next piece or its row, from now on
    /// (``MockWriteAbandoned``): the server is stopping, and a write under way must not commit
    /// a row after its client was told `503 the server is stopping`. A write already past this
    /// check commits its row; the server's stop waits for its answer (docs/answering-later.md#the-guarantees).
    func abandonWrites() {
        state.withLock { $0.abandoning = true }
    }

    /// - Throws: ``MockWriteAbandoned`` after ``abandonWrites()``.
    private func checkNotAbandoned() throws(MockWriteAbandoned) {
        if state.withLock({ $0.abandoning }) { throw MockWriteAbandoned() }
    }

    /// Stops sweeping: no sweep starts from now on, and one under way ends after its current
    /// piece, before this returns (the write connection closes next). What is left is swept at
    /// the next start.
    func stop() {
        state.withLock { $0.stopped = true }
        sweeps.sync {}
    }

    /// The ids of the bodies that have pieces and no row pointing at them.
    private static func unusedBodies(_ db: Database) throws -> [Int64] {
        try db.query("""
            SELECT DISTINCT body_id FROM mock_body_pieces
            WHERE body_id NOT IN (SELECT response_body_id FROM mock_rows WHERE response_body_id IS NOT NULL)
            """).compactMap { $0[0].intValue }
    }
}
