import CatbirdStorage
import CatbirdSupport
import Foundation
import Synchronization

/// Writes journal entries off the request path: one writer thread, transactions of up to
/// ``maxBatchSize`` rows and ``maxRoundBytes`` bytes, a bounded queue.
///
/// `append` never touches the disk; it blocks only when `capacity` entries or `byteCapacity`
/// bytes are already waiting (back-pressure rather than loss), except while the writer is stuck
/// (its rounds fail, or one has waited ``stuckRound`` for the database), when an entry the full
/// queue has no room for is dropped at once rather than holding a worker other tenants need,
/// the tenants that fill it first (``enqueue(_:bytes:tenant:)``, tester25a-F9, tester26b-F5).
/// ``flush(for:)`` waits until
/// everything a tenant appended before the call is committed, which is how journal queries read
/// their own writes; ``flush()`` waits for every tenant's.
///
/// The writer shares the write connection with control changes. It takes the queue in rounds
/// of at most ``maxBatchSize`` entries and ``maxRoundBytes`` bytes, one transaction each, and
/// lets go of the connection between rounds; the connection serves its users in the order they
/// asked (``SerialDatabase/use(_:)``), so the control changes that wait for it go before the
/// writer's next round, and a control change waits for one round (milliseconds), not for a
/// whole backlog.
///
/// Each commit has a fixed cost (the transaction, the tenant's activity time, the mock's hit
/// count, the WAL pages written), so the writer gathers before it commits: woken by the first
/// entry, it waits until ``gatherRows`` entries are queued or ``gatherWindow`` has passed, then
/// writes them all in one round. Whoever needs the commit now does not wait for the window: a
/// ``flush()`` (journal reads) and ``stop()`` end it, and so do commit waiters (strict
/// durability, whose clients wait for the commit): half as many as the last round released.
///
/// That is group commit sized by the last group: every answer a commit releases lets its
/// client send its next request, so a round that released n waiters is followed by about n
/// more, and the next round waits for half of them (at most ``waiterGatherWindow``) instead of
/// committing for the first. Each commit's fixed cost (the transaction, about six WAL pages
/// written however few the rows, the writer's sleep and wake-up) is shared by many answers,
/// while the clients of the other half are served meanwhile: waiting for all n put nearly every
/// client into one commit, and while it was written the workers had nothing to do (one of two
/// cores idle); measured with 64 connections on 2 cores (server and wrk at real-time priority),
/// waiting for half gave about 11 % more strict answers per second than waiting for all (18
/// rows per commit instead of 40) and as many as committing for the first waiter (12 rows).
/// After a round of one to three (a lone client or a few) nothing is held; after a larger
/// round, one answer may wait up to the window once when fewer clients are left. A fixed delay
/// (PostgreSQL's `commit_delay`) would hold every commit, a lone client's too.
public final class JournalWriter: Sendable {
    /// Entries written per transaction at most: 1,000.
    public static let maxBatchSize = 1000
    /// Bytes written per transaction at most (``roundSize(of:)``; a larger entry goes alone):
    /// 256 KiB. A round holds the write connection, which control changes share,
    /// so its size bounds their wait: rounds of up to the whole 16 MiB queue (about 270 entries
    /// of 60 KB bodies) kept another tenant's `update` waiting p50 197 / p90 236 ms (tester
    /// finding T15A-F2: one tenant uploading 60 KB bodies); with 1 MiB rounds p90 31 ms, with
    /// 256 KiB p90 13 ms, and the uploads went faster. 256 KiB still holds the rounds of usual
    /// entries (mock hits with short bodies: a few hundred bytes each, a round of 256 of them
    /// about 100 KiB).
    public static let maxRoundBytes = 256 << 10
    /// How long the writer waits for more entries after the first one, at most: 2 ms. Entries
    /// become readable that much later for readers that do not flush (a journal wait, the web
    /// page); at 50,000 requests per second it turns about 10 rows per commit into about 100.
    public static let gatherWindow: Duration = .milliseconds(2)
    /// How long a held entry (``appendOrHold(_:)``) waits while the writer's rounds fail and the
    /// whole queue has no room for it before it is dropped (counted in
    /// ``JournalWriterStatistics/droppedRows``; its mock hit is kept, ``HeldHits``): 2 s. A plain
    /// append never waits while the writer is stuck: it is queued or dropped at once
    /// (`State.roomWhileStuck`, tester25a-F9, tester26b-F5). While the writer succeeds an append
    /// waits for room however long it takes (back-pressure).
    public static let appendPatience: Duration = .seconds(2)
    /// How long a round may be under way before the writer counts as stuck for the room of a
    /// full queue, as while its rounds fail (``failure``): 2 s, as long as a held entry waits for
    /// room while they fail (``appendPatience``). A busy file's first round waits its 5 s busy
    /// timeout before it fails, while the queue fills and every append waits for room
    /// (tester25a-F9: another tenant's hit waited 4.7 s then); healthy rounds take milliseconds,
    /// and a slow one (a long fsync) under a full queue stays back-pressure, not loss, for this
    /// long (0.5 s was measured too: a hit then waited at most 0.1-0.2 s, but a healthy round
    /// that slow would have dropped rows). See `State.roomWhileStuck`.
    public static let stuckRound: Duration = .seconds(2)
    /// Entries this large or larger (``queuedSize(of:)``, after truncation) count against their
    /// tenant's share of the queue (``tenantShareBytes``): 8 KiB. Usual mock hits (a few hundred
    /// bytes) never do, so their appends cost no per-tenant bookkeeping.
    public static let largeEntryBytes = 8 << 10
    /// Bytes of large entries (``largeEntryBytes``) one tenant may have queued: 1 MiB, four
    /// rounds (``maxRoundBytes``), enough to keep the writer busy. Past it the tenant's next
    /// large entry made on a libmicrohttpd worker is held (``appendOrHold(_:)``) and its answer
    /// with it, its connection parked, so the worker goes on serving other tenants: one tenant
    /// uploading 60 KB bodies filled the whole 16 MiB queue, and the workers that queued its
    /// next rows waited for room while other tenants' hits on the same workers waited behind them
    /// (tester22b-F4: another tenant's p99 1.6 → 64 ms). With strict durability it seldom
    /// engages: each client waits for its entry's commit before it sends the next request, so a
    /// tenant has about one entry per connection queued (tester23c-F4).
    public static let tenantShareBytes = 1 << 20
    /// Queued entries that end the gathering at once: 256.
    public static let gatherRows = 256
    /// How long a round with commit waiters waits for half as many waiters as the last round
    /// released, at most: 0.5 ms from when the writer starts gathering (the default
    /// ``waiterGatherWindow``).
    public static let defaultWaiterGatherWindow: Duration = .microseconds(500)
    /// How long a round with commit waiters waits for half as many waiters as the last round
    /// released, at most, counted from when the writer starts gathering: an entry queued while
    /// the previous round commits waits for that commit and then this window.
    public let waiterGatherWindow: Duration
    /// Whether failing rounds stay queued and dropped entries' hits are held (``init``'s parameter).
    let holdsWhatFails: Bool
    /// Entries waiting at most; `append` blocks beyond this.
    public let capacity: Int
    /// Bytes waiting at most: bodies (after truncation to `bodyLimit`), header JSON, URL and
    /// near-miss text, counted as UTF-8; `append` blocks beyond this.
    public let byteCapacity: Int
    /// Bytes of each body stored at most; longer bodies are truncated and marked.
    public let bodyLimit: Int
    /// Callbacks waiting for a tenant's entries; woken after each commit (``JournalWaiters``).
    public let waiters = JournalWaiters()
    /// Tenants' work in memory (``TenantActivity``), told of each committed round's tenants;
    /// `--tenant-ttl` asks it (``TenantDirectory/activity``).
    public let activity = TenantActivity()
    /// The journal's bytes for retention's byte limit: each commit's are added to it
    /// (``JournalBytes/committed(_:)``).
    let bytes = JournalBytes()
    /// ``highestID``'s value: set at start from the file, then by the writer thread after each commit.
    let highest: Atomic<Int64>
    /// The highest journal row id in the file as far as this writer knows: the file's when it
    /// started (`Int64.max` when that could not be read), then raised by each commit. Every
    /// row is written by the writer, so once the queue is flushed no row has a higher id (a
    /// count's bound: ``Journal/count(of:matching:timeLimit:)``).
    public var highestID: Int64 { highest.load(ordering: .acquiring) }
    /// Runs the release of one commit's waiters (``whenCommitted(_:_:)``): given by the HTTP
    /// server, which then wakes each of its worker threads once for the whole group rather
    /// than once per answer.
    let releasing: @Sendable (() -> Void) -> Void
    let database: SerialDatabase
    let log: Logger
    /// Guards `state`; also the condition every waiter (appenders, flushers, the writer) waits on.
    let condition = NSCondition()
    /// `nonisolated(unsafe)`: read and written only while `condition` is locked.
    nonisolated(unsafe) var state = State()
    /// The repeated response bodies stored once (``JournalBodies``). `nonisolated(unsafe)`:
    /// read and written only by the writer thread (``write(_:)``, called from ``run()`` only).
    nonisolated(unsafe) var bodies = JournalBodies()
    /// The row id of each committed entry (``amend(_:problem:filePath:)``). `nonisolated(unsafe)`: read
    /// and written only by the writer thread, as ``bodies``.
    nonisolated(unsafe) var rowIDs = JournalRowIDs()
    /// The last round's buffer, emptied once its answers left, given back as the queue's
    /// (``State/take(_:bytes:spare:)``): one per round allocated and freed cost the writer
    /// a large `malloc` per commit, which with strict durability's small, frequent commits
    /// (14-30 rows) showed in its profile (malloc_consolidate). Kept only up to 1,024
    /// entries' room (a backlog's buffer is freed). `nonisolated(unsafe)`: read and written
    /// only by the writer thread (``run()``), passed to `take` under `condition`.
    nonisolated(unsafe) var spareBuffer: [JournalEntry] = []

    /// A sentence for the `problem` of the entry with `sequence` (none: `problem` unchanged), and
    /// what becomes of its `filePath` (``amend(_:problem:filePath:)``).
    struct Amendment {
        var sequence: UInt64
        var problem: String?
        var filePath = JournalFilePathChange.unchanged
    }

    /// Where the writer is in its stop, in order.
    enum Phase: Int, Comparable {
        /// Taking and writing entries.
        case running
        /// ``stopComing()`` was called: the server's stop began, ``stop()`` follows once the
        /// server's other parts stopped; appends are still taken, and a failed round is the last
        /// attempt at its entries.
        case stopComing
        /// ``stop()`` was called: the writer writes what is queued, gathering no more.
        case stopping
        /// The writer thread ended: nothing more is written, appends are dropped.
        case stopped

        static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Starts the writer thread.
    /// - Parameters:
    ///   - capacity: queue bound, in entries.
    ///   - byteCapacity: queue bound, in bytes of (truncated) bodies, header JSON, URLs and
    ///     near-miss texts.
    ///   - bodyLimit: bytes of each request/response body kept in the journal.
    ///   - waiterGatherWindow: ``waiterGatherWindow`` (tests give a long one to see the rounds).
    ///   - holdsWhatFails: relaxed durability (true, the default): a round that fails for a
    ///     cause that passes (busy, full, a write error: ``SQLiteError/isTransient``) stays queued and is tried
    ///     again, and the mock hit of an entry dropped all the same is written by a later round
    ///     (``HeldHits``), since nothing gives it back in memory. Strict durability (false): a
    ///     failing round is dropped after three attempts, as before, and its commit waiters told:
    ///     their answers are withheld (503) and their hits given back in memory
    ///     (``whenCommitted(_:_:)``), so nothing acknowledged is lost and no client waits for the
    ///     database indefinitely.
    ///   - releasing: runs its argument, which calls one commit's waiters (strict durability),
    ///     on the writer thread; e.g. to hold back the wake-ups those calls ask for until all
    ///     are made. By default it just runs it.
    public init(
        database: SerialDatabase, capacity: Int = 16_384, byteCapacity: Int = 16 << 20, bodyLimit: Int,
        waiterGatherWindow: Duration = JournalWriter.defaultWaiterGatherWindow, holdsWhatFails: Bool = true,
        releasing: @escaping @Sendable (() -> Void) -> Void = { $0() }, log: Logger
    ) {
        self.database = database
        let start = try? database.use { db in try db.query("SELECT max(id) FROM journal_rows").first?[0].intValue ?? 0 }
        highest = Atomic(start ?? .max)
        self.releasing = releasing
        self.waiterGatherWindow = waiterGatherWindow
        self.holdsWhatFails = holdsWhatFails
        self.capacity = max(1, capacity)
        self.byteCapacity = max(1, byteCapacity)
        self.bodyLimit = max(0, bodyLimit)
        self.log = log
        let thread = Thread.named("catbird-journal") { [self] in run() }
        thread.start()
    }

    /// Says that ``stop()`` is coming (the server's stop began and first stops its other
    /// parts, which can take seconds: a pruning pass or a control call waiting for the same
    /// busy database): appends are still taken and written as before, but a round that fails
    /// from now on is not tried again, and the rounds after it are dropped unwritten, as after
    /// ``stop()``. So a stop while the database does not take writes waits for the round under
    /// way at most (one 5 s busy timeout), not for the rounds that follow until ``stop()``
    /// (tester finding T18B-F5: 8.5–9 s, two busy timeouts, near Docker's 10 s before SIGKILL).
    public func stopComing() {
        condition.lock()
        state.phase = max(state.phase, .stopComing)
        condition.unlock()
    }

    /// Writes what is queued, then stops the writer thread and wakes every waiter (with
    /// false). Appends after this are dropped. When the database does not take the writes
    /// (busy, full, a write error), the round under way fails after its attempt (one 5 s busy timeout after
    /// the stop at most) and what is still queued, held mock hits included, is dropped and
    /// logged as not stored, rather than waiting for the database any longer.
    /// - Returns: true when everything appended before was stored; false when something was
    ///   dropped since the start (``JournalWriterStatistics/droppedRows``, ``JournalWriterStatistics/droppedHits``).
    @discardableResult
    public func stop() -> Bool {
        condition.lock()
        state.phase = max(state.phase, .stopping)
        condition.broadcast()
        while state.phase < .stopped { condition.wait() }
        let stored = state.statistics.droppedRows == 0 && state.statistics.droppedHits == 0
        condition.unlock()
        waiters.stop()
        return stored
    }

    /// Since when the writer's rounds have failed, and the last failure's reason; nil while
    /// they succeed (for `/catbird/api/health`).
    public var failure: JournalWriterFailure? {
        condition.lock()
        defer { condition.unlock() }
        return state.failure ?? state.failedAttempt
    }

    /// Entries taken and not yet written: queued, in the round under way, or held for their
    /// tenant's share. Each gets the next row id when written (unless its round is dropped), so
    /// the newest id issued plus these is the highest id a request answered so far can have.
    public var entriesNotYetWritten: Int {
        condition.lock()
        defer { condition.unlock() }
        return state.waiting + state.inRound.entries + state.held.count
    }

    /// The queue as it is now and the commits so far (for `/catbird/metrics`).
    public func statistics() -> JournalWriterStatistics {
        condition.lock()
        defer { condition.unlock() }
        var statistics = state.statistics
        // The round under way counted in: while the database is busy its entries wait in it, and
        // the gauges read 0 for a whole outage (tester finding tester50c-F5).
        statistics.queuedEntries = state.waiting + state.inRound.entries
        statistics.queuedBytes = state.queuedBytes + state.inRound.bytes
        statistics.heldEntries = state.held.count
        statistics.heldHits = state.heldHits.hits + state.heldHitsInRound
        return statistics
    }
}
