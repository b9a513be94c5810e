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
    private let highest: Atomic<Int64>
    /// The highest journal row id in the file as far as this writer knows: the file's when it
    /// started (`Int64.max` when that could not be read), then raised by each commit. Every
    /// row is written by the writer, so once the queue is flushed no row has a higher id (a
    /// count's bound: ``Journal/count(of:matching:timeLimit:)``).
    public var highestID: Int64 { highest.load(ordering: .acquiring) }
    /// Runs the release of one commit's waiters (``whenCommitted(_:_:)``): given by the HTTP
    /// server, which then wakes each of its worker threads once for the whole group rather
    /// than once per answer.
    private let releasing: @Sendable (() -> Void) -> Void
    private let database: SerialDatabase
    private let log: Logger
    /// Guards `state`; also the condition every waiter (appenders, flushers, the writer) waits on.
    private let condition = NSCondition()
    /// `nonisolated(unsafe)`: read and written only while `condition` is locked.
    nonisolated(unsafe) private var state = State()
    /// The repeated response bodies stored once (``JournalBodies``). `nonisolated(unsafe)`:
    /// read and written only by the writer thread (``write(_:)``, called from ``run()`` only).
    nonisolated(unsafe) private var bodies = JournalBodies()
    /// The row id of each committed entry (``amend(_:problem:filePath:)``). `nonisolated(unsafe)`: read
    /// and written only by the writer thread, as ``bodies``.
    nonisolated(unsafe) private var rowIDs = JournalRowIDs()
    /// The last round's buffer, emptied once its answers left, given back as the queue's
    /// (``State/take(_:bytes:spare:)``): one per round allocated and freed cost the writer
    /// a large `malloc` per commit, which with strict durability's small, frequent commits
    /// (14-30 rows) showed in its profile (malloc_consolidate). Kept only up to 1,024
    /// entries' room (a backlog's buffer is freed). `nonisolated(unsafe)`: read and written
    /// only by the writer thread (``run()``), passed to `take` under `condition`.
    nonisolated(unsafe) private var spareBuffer: [JournalEntry] = []

    /// A sentence for the `problem` of the entry with `sequence` (none: `problem` unchanged), and
    /// what becomes of its `filePath` (``amend(_:problem:filePath:)``).
    struct Amendment {
        var sequence: UInt64
        var problem: String?
        var filePath = JournalFilePathChange.unchanged
    }

    /// Where the writer is in its stop, in order.
    private enum Phase: Int, Comparable {
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

    private struct State {
        /// Waiting entries are `queue[head...]`; the writer advances `head` rather than
        /// shifting the array on every round.
        var queue: [JournalEntry] = []
        var head = 0
        var queuedBytes = 0
        /// Bytes of the large entries (``JournalWriter/largeEntryBytes``) queued, per tenant (a
        /// tenant with none is absent) and in all: what ``JournalWriter/appendOrHold(_:)`` holds by.
        var largeBytes: [TenantID: Int] = [:]
        var largeTotal = 0
        /// Entries held until their tenant's share has room (``JournalWriter/appendOrHold(_:)``).
        var held = HeldAppends()
        var appended: UInt64 = 0
        var committed: UInt64 = 0
        /// The sequence (``JournalTicket``) of each tenant's last entry appended and not yet
        /// committed (a tenant whose entries are all committed is absent): what its reads
        /// wait for (``flush(for:)``), except the tenant of the latest run of appends, which
        /// `latestRun` holds (``lastQueued(of:)``).
        var lastQueued: [TenantID: UInt64] = [:]
        /// The tenant of the latest appends and the sequence of its last one, moved into
        /// `lastQueued` only when another tenant's entry is appended: the usual run of one
        /// tenant's requests costs each append a comparison, not a hash and a dictionary write
        /// under the lock every worker takes. Nil when that entry is committed.
        var latestRun: (tenant: TenantID, sequence: UInt64)?
        /// Where the writer is in its stop (``Phase``): only ever moves forward.
        var phase = Phase.running
        /// The writer thread waits for entries (an append must wake it).
        var writerIdle = false
        /// The writer thread waits for more entries before a round (``gatherWindow``): an
        /// append that queues ``gatherRows`` entries, a flush or a commit waiter must wake it.
        var writerGathering = false
        /// Flushes waiting: the writer does not gather while there is one.
        var flushers = 0
        var statistics = JournalWriterStatistics()
        /// Strict durability (``whenCommitted(_:_:)``): callbacks waiting for a commit, in
        /// ticket order, and the ticket ranges whose batch was dropped.
        var commitWaiters = CommitWaiters()
        /// Commit waiters the last round released: the waiters the next round waits for.
        var lastReleased = 0
        /// Amendments waiting for the writer (``JournalWriter/amend(_:problem:filePath:)``), in order.
        var amendments: [Amendment] = []
        /// Amendments queued since the start, and written (or dropped with their round): what a
        /// flush waits for besides the entries.
        var amendmentsQueued: UInt64 = 0
        var amendmentsDone: UInt64 = 0
        /// Mock hits whose entries were dropped (``JournalWriter/HeldHits``): written by a later
        /// round, so the `mocks` rows agree with the mocks in memory once the database takes
        /// writes again. One count per mock, so bounded by the number of mocks.
        var heldHits = HeldHits()
        /// The held hits the round under way writes (taken out of `heldHits`), 0 between rounds:
        /// still owed until it commits (``JournalWriterStatistics/heldHits``).
        var heldHitsInRound = 0
        /// Since when the writer's rounds fail and why, nil while they succeed
        /// (``JournalWriter/failure``). Ended by ``noteWrites()``.
        var failure: JournalWriterFailure?
        /// What each tenant has queued, counted only while the writer is stuck, from when the
        /// queue is first found full (``roomWhileStuck(for:of:capacity:byteCapacity:)``) until
        /// a round commits or a probe finds the database writable (``noteWrites()``); nil
        /// otherwise, so the usual appends pay nothing for it.
        var byTenant: QueuedByTenant?
        /// The entries and bytes of the round under way, out of the queue until it commits or
        /// is given back (a failing round is: ``JournalWriter/giveBack(_:amendments:hits:reason:)``);
        /// zero between rounds. ``roomWhileStuck(for:of:capacity:byteCapacity:)`` counts them as queued.
        var inRound = QueuedByTenant.Queued()
        /// When the round under way was taken, nil between rounds: a round under way
        /// ``JournalWriter/stuckRound`` or longer counts as stuck (``isStuck``).
        var roundSince: ContinuousClock.Instant?

        /// Notes that the database took a write (a round committed, or a probe did): the failure
        /// ends, and `byTenant` is no longer counted.
        mutating func noteWrites() {
            failure = nil
            byTenant = nil
        }

        /// Whether the writer is stuck: its rounds fail (``failure``), or the round under way
        /// has lasted ``JournalWriter/stuckRound`` (reads the clock unless failing: not on an
        /// append's usual path).
        var isStuck: Bool {
            failure != nil || roundSince.map { .now - $0 >= JournalWriter.stuckRound } == true
        }
        /// Set when a round failed while stopping: the rest of the queue is dropped unwritten
        /// rather than each round waiting for the database again (``JournalWriter/stop()``).
        var givingUp = false
        /// What the rounds dropped unwritten while giving up: logged once, when the writer stops
        /// (tester25a-F4: a line per round of 4 large rows, 56 lines, each with a running total
        /// of the hits held again).
        var givenUp = (entries: 0, amendments: 0)
        /// Commit waiters that end the current gathering (``gather()``): half as many as the
        /// last round released (rounded down), at least one. (Only the writer thread commits,
        /// so this does not change while it gathers.)
        var waitersToCommit: Int { max(1, lastReleased / 2) }

        var waiting: Int { queue.count - head }

        /// The sequence of `tenant`'s last entry appended and not yet committed, 0 when none.
        func lastQueued(of tenant: TenantID) -> UInt64 {
            if let latestRun, latestRun.tenant == tenant { return latestRun.sequence }
            return lastQueued[tenant] ?? 0
        }

        /// Notes `sequence` as `tenant`'s last entry appended (``lastQueued(of:)``).
        mutating func noteAppended(_ sequence: UInt64, of tenant: TenantID) {
            if let run = latestRun, run.tenant != tenant { lastQueued[run.tenant] = run.sequence }
            latestRun = (tenant, sequence)
        }

        /// Counts an entry of `bytes` (``JournalWriter/queuedSize(of:)``) of `tenant` as queued.
        mutating func countQueued(_ bytes: Int, of tenant: TenantID) {
            queuedBytes += bytes
            byTenant?.add(bytes, of: tenant)
            guard bytes >= JournalWriter.largeEntryBytes else { return }
            largeBytes[tenant, default: 0] += bytes
            largeTotal += bytes
        }

        /// Counts an entry of `bytes` of `tenant` as no longer queued (taken for a round).
        mutating func countTaken(_ bytes: Int, of tenant: TenantID) {
            queuedBytes -= bytes
            byTenant?.remove(bytes, of: tenant)
            guard bytes >= JournalWriter.largeEntryBytes else { return }
            largeTotal -= bytes
            let left = (largeBytes[tenant] ?? bytes) - bytes
            largeBytes[tenant] = left > 0 ? left : nil
        }

        /// Whether the queue takes an entry of `bytes` now without waiting: under `capacity`
        /// entries and `byteCapacity` bytes, or empty (an entry larger than the queue goes alone).
        func hasRoom(for bytes: Int, capacity: Int, byteCapacity: Int) -> Bool {
            waiting == 0 || (waiting < capacity && queuedBytes + bytes <= byteCapacity)
        }

        /// Whether an append is queued while the writer is stuck (``isStuck``: its rounds fail,
        /// or the round under way has waited ``JournalWriter/stuckRound`` for the database);
        /// false: it is dropped at once (its mock hit kept, as any dropped entry's: ``HeldHits``),
        /// never waited for. Until full (counting the round under way, ``inRound``: a failing
        /// round is given back), the queue takes every entry. Once full, the entry of a tenant
        /// that fills it (``QueuedByTenant/fills(_:)``: at least half the mean queued per tenant;
        /// a tenant with none queued never does) is dropped; the other tenants' entries may pass
        /// the queue's bounds by an eighth (2,048 entries, 2 MiB), and are dropped past that.
        ///
        /// Tester finding tester25a-F9: while a write lock held the writer, one tenant's 16
        /// connections flooding hits filled the queue (16,384 entries), and each of their
        /// appends then waited for room on one of the two libmicrohttpd workers (for the first
        /// round's whole 5 s busy timeout, then 2 s each before its entry was dropped), so another
        /// tenant's single hits waited behind them 4.7 s and 9.9 s (0.054 s at most without the
        /// lock). Nothing leaves the queue while the writer is stuck, so waiting gives a tenant that
        /// fills it no room, only holds the workers every tenant shares; dropped at once, its
        /// entries' answers leave at once too. Nor does waiting help the others: when many tenants
        /// flood, each below its sixteenth (tester26b-F5: 32 shards of one `wrk -c16`, about 512
        /// rows each), the appends past the eighth waited 2 s each, and another tenant's hits
        /// waited 1.3-7.9 s, a health check 3 s. Parking them instead (``appendOrHold(_:)``)
        /// would hold them for the whole failure, which can last until someone acts. The eighth
        /// past the bounds, rather than one kept within them, is there when the round under way
        /// is first found stuck: by then the flood has filled the whole queue.
        ///
        /// `byTenant` is counted from here on until a round commits or a probe finds the database
        /// writable (``noteWrites()``): built from the queue the first time (one pass), so
        /// appends pay for it only then.
        mutating func roomWhileStuck(for bytes: Int, of tenant: TenantID, capacity: Int, byteCapacity: Int) -> Bool {
            guard waiting + inRound.entries >= capacity || queuedBytes + inRound.bytes + bytes > byteCapacity else { return true }
            if byTenant == nil {
                var counted = QueuedByTenant()
                for index in head..<queue.count { counted.add(JournalWriter.queuedSize(of: queue[index]), of: queue[index].tenant) }
                byTenant = counted
            }
            if byTenant!.fills(tenant) { return false }
            return hasRoom(for: bytes, capacity: capacity + capacity / 8, byteCapacity: byteCapacity + byteCapacity / 8)
        }

        /// Whether `tenant`'s large entry of `bytes` may be queued now (``JournalWriter/appendOrHold(_:)``):
        /// the queue has room, the tenant's large entries stay within
        /// ``JournalWriter/tenantShareBytes`` (not while the writer fails: see below) and all
        /// tenants' within three quarters of `byteCapacity` (the last quarter is for small
        /// entries, the usual mock hits). A tenant (or the queue) with no large entry queued
        /// takes one of any size. While the writer fails (``failure``) the tenant's share is not
        /// kept: nothing leaves the queue then, so a share would hold the tenant's answers for
        /// the whole failure (a file-size limit or a full disk lasts until someone acts; the
        /// clean-clone CI of d5ddd7d: 60 uploads held past their client's 30 s); the three
        /// quarters still are, so other tenants' small entries find room, except that a tenant
        /// that does not fill them (``fillsLarge(_:)``) may pass them by an eighth of
        /// `byteCapacity` (2 MiB by default), and the whole queue's bounds by an eighth as its
        /// small rows may (``roomWhileStuck(for:of:capacity:byteCapacity:)``): the tenant
        /// flooding uploads loses its bodies first, as it loses its small rows first once the
        /// queue is full (tester26b-F3: another tenant's upload every 0.4 s lost its body 11
        /// times in 25; tester27b-F2: still 17 times in 36 once the flooder's rows without
        /// bodies filled the queue's 16,384 rows).
        func admitsLarge(_ bytes: Int, of tenant: TenantID, capacity: Int, byteCapacity: Int) -> Bool {
            let threeQuarters = byteCapacity / 4 * 3
            if hasRoom(for: bytes, capacity: capacity, byteCapacity: byteCapacity) {
                if failure == nil, let own = largeBytes[tenant], own + bytes > JournalWriter.tenantShareBytes { return false }
                if largeTotal == 0 || largeTotal + bytes <= threeQuarters { return true }
            }
            guard failure != nil, !fillsLarge(tenant) else { return false }
            return largeTotal + bytes <= threeQuarters + byteCapacity / 8
                && hasRoom(for: bytes, capacity: capacity + capacity / 8, byteCapacity: byteCapacity + byteCapacity / 8)
        }

        /// Whether `tenant` fills the large entries' room: it has large entries queued, at least
        /// half the large bytes queued per tenant with any (the rule of ``QueuedByTenant/fills(_:)``,
        /// for large entries' bytes).
        func fillsLarge(_ tenant: TenantID) -> Bool {
            guard let own = largeBytes[tenant] else { return false }
            return own * 2 * largeBytes.count >= largeTotal
        }

        /// Forgets the tenants whose entries are all committed.
        mutating func forgetCommitted() {
            if let run = latestRun, run.sequence <= committed { latestRun = nil }
            if !lastQueued.isEmpty {
                let committed = committed
                lastQueued = lastQueued.filter { $0.value > committed }
            }
        }

        /// Removes and returns up to `limit` of the oldest waiting entries, and no more than
        /// fit in `budget` bytes to write (``JournalWriter/roundSize(of:)``), but at least one.
        /// `spare`: an empty buffer (the last round's, ``JournalWriter/spareBuffer``) that becomes
        /// the queue when the whole queue is taken, so that round allocates no new one.
        mutating func take(_ limit: Int, bytes budget: Int, spare: inout [JournalEntry]) -> [JournalEntry] {
            var limit = limit
            if queuedBytes > budget {
                var bytes = 0
                var count = 0
                var answers = Set<String>()
                for index in head..<min(queue.count, head + limit) {
                    bytes += JournalWriter.roundSize(of: queue[index], counted: &answers)
                    if count > 0 && bytes > budget { break }
                    count += 1
                }
                limit = count
            }
            if head == 0 && queue.count <= limit {  // the usual round: all of it, moved out
                var taken: [JournalEntry] = []
                swap(&taken, &spare)
                swap(&taken, &queue)
                // A new buffer only when there is no spare: JournalEntry is large, so one for a
                // round's entries is a large allocation (malloc consolidates its free lists for it).
                if queue.capacity == 0 { queue.reserveCapacity(min(taken.capacity, 1024)) }  // free a backlog's buffer
                return taken
            }
            let end = head + min(waiting, limit)
            let taken = Array(queue[head..<end])
            head = end
            if head == queue.count {
                queue.removeAll(keepingCapacity: queue.capacity <= 1024)  // free a backlog's buffer
                head = 0
            } else if head * 2 >= queue.count {
                queue.removeFirst(head)  // amortised: at most once per half of the array
                head = 0
            }
            return taken
        }
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

    /// Queues an entry for writing. Returns at once unless the queue is full. Once the writer
    /// has stopped (``stop()``), the entry is dropped.
    /// - Returns: the entry's ticket, for ``whenCommitted(_:_:)`` (strict durability).
    @discardableResult
    public func append(_ entry: consuming JournalEntry) -> JournalTicket {
        // `consuming`: the caller's entry is moved in and on into the queue, not copied (a
        // copy retains each of its strings and arrays).
        var entry = entry
        let bytes = truncate(&entry)
        let tenant = entry.tenant
        condition.lock()
        return enqueue(entry, bytes: bytes, tenant: tenant)
    }

    /// Queues a truncated `entry` of `bytes` (``queuedSize(of:)``) for `tenant`, waiting for
    /// room (``append(_:)``) while the writer is not stuck. Called with `condition` locked;
    /// unlocks it. While the writer is stuck (``State/isStuck``) it is queued or dropped at once
    /// (``State/roomWhileStuck(for:of:capacity:byteCapacity:)``, tester25a-F9, tester26b-F5).
    private func enqueue(_ entry: consuming JournalEntry, bytes: Int, tenant: TenantID) -> JournalTicket {
        while state.phase < .stopping {
            if state.hasRoom(for: bytes, capacity: capacity, byteCapacity: byteCapacity) && state.failure == nil {
                break  // the usual append: nothing more to check
            }
            if state.isStuck {
                // Queued, or dropped at once: an append never holds its worker while nothing
                // leaves the queue (tester25a-F9, tester26b-F5).
                guard state.roomWhileStuck(for: bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity) else {
                    return drop(entry)
                }
                break
            }
            // Back-pressure: wait for room, for a round under way no longer than until it counts as stuck.
            if let since = state.roundSince {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (since + Self.stuckRound - .now).timeInterval))
            } else {
                condition.wait()
            }
        }
        // While stopping the writer still drains the queue; once stopped nothing would write it.
        guard state.phase < .stopped else {
            condition.unlock()
            return .dropped
        }
        let ticket = queueNow(entry, bytes: bytes, tenant: tenant)
        state.statistics.longestQueue = max(state.statistics.longestQueue, state.waiting)
        state.statistics.longestQueueBytes = max(state.statistics.longestQueueBytes, state.queuedBytes)
        // Only the writer waits for appends.
        if state.writerIdle || (state.writerGathering && (state.waiting >= Self.gatherRows || state.queuedBytes >= byteCapacity / 2)) {
            condition.broadcast()
        }
        condition.unlock()
        return ticket
    }

    /// Called with `condition` locked while the writer is stuck (``enqueue(_:bytes:tenant:)``):
    /// drops `entry` unqueued, counts it (``JournalWriterStatistics/droppedRows``), keeps its
    /// mock hit for a later round (``HeldHits``; not with strict durability, whose caller gives
    /// it back) and logs the first drop and every 1,000th. Unlocks `condition`.
    private func drop(_ entry: borrowing JournalEntry) -> JournalTicket {
        state.statistics.droppedRows += 1
        state.failure?.droppedRows += 1
        if holdsWhatFails, let hit = entry.mockHit { state.heldHits.add(hit.mockID, count: 1) }
        let dropped = state.statistics.droppedRows
        condition.unlock()
        if dropped == 1 || dropped % 1000 == 0 {  // not a line per request
            let hit = holdsWhatFails ? "; its mock hit is kept" : ""
            log.error(
                "journal: the queue is full and the writer stuck (failing, or its round waiting for the database): dropped an entry (\(dropped) dropped in all\(hit))"
            )
        }
        return .dropped
    }

    /// Cuts `entry`'s bodies to the journal's body limit, as every entry is queued, and returns
    /// its size in the queue (``queuedSize(of:)``).
    private func truncate(_ entry: inout JournalEntry) -> Int {
        entry.truncateBodies(to: bodyLimit)
        return Self.queuedSize(of: entry)
    }

    /// Called with `condition` locked and room checked: puts `entry` in the queue and returns its ticket.
    private func queueNow(_ entry: consuming JournalEntry, bytes: Int, tenant: TenantID) -> JournalTicket {
        state.queue.append(consume entry)
        state.countQueued(bytes, of: tenant)
        state.appended += 1
        state.noteAppended(state.appended, of: tenant)
        return JournalTicket(sequence: state.appended)
    }

    /// ``append(_:)`` for an entry made on a thread that serves other tenants too (a
    /// libmicrohttpd worker): a large entry (``largeEntryBytes``) whose tenant has its share of
    /// the queue already (``tenantShareBytes``; three quarters of ``byteCapacity`` for all
    /// tenants' large entries), or entries held before it, is held rather than waited for: the
    /// writer queues it once its tenant's earlier large entries are written (tenants with held
    /// entries take turns), and the caller answers then (``JournalHold/whenQueued(_:)``), so the
    /// thread goes on meanwhile. While the writer fails (a busy or full file, a file-size
    /// limit) the tenant's share is not kept, but the three quarters are: held entries are
    /// queued while those have room (their answers leave: tester23c-F1, held entries were
    /// dropped after 2 s of failure with the queue nearly empty; the clean-clone CI of d5ddd7d,
    /// held for the whole failure, past their client's timeout), and past them an entry is
    /// queued without its bodies (``bodilessProblem``), which the last quarter has room for,
    /// so it is neither held nor dropped (tester25a-F5, F6: held rows past the three quarters
    /// were dropped after 2 s, another tenant's one upload and its row among them, and a
    /// client that hung up meanwhile kept its mock's hit). One is dropped only as a plain
    /// append's entry is, once the whole queue had no room for it for ``appendPatience``.
    /// Other tenants' small entries keep the last quarter (tester23c-F2: appends that went
    /// around the share while the writer failed filled the whole queue with one tenant's
    /// entries, and another tenant's small entry waited for room).
    /// Other entries are appended as by ``append(_:)`` (waiting only when the whole queue is
    /// full); so are all once the stop began.
    public func appendOrHold(_ entry: consuming JournalEntry) -> JournalAppend {
        var entry = entry
        let bytes = truncate(&entry)
        let tenant = entry.tenant
        condition.lock()
        guard bytes >= Self.largeEntryBytes, state.phase == .running,
            state.held.holds(tenant) || !state.admitsLarge(bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity)
        else { return .queued(enqueue(entry, bytes: bytes, tenant: tenant)) }
        if state.failure != nil && !state.held.holds(tenant) {
            // The writer fails and large rows fill their three quarters: queued now without its
            // bodies, as a plain append (waiting only for the whole queue).
            let (bodiless, size) = Self.bodiless(entry)
            return .queued(enqueue(bodiless, bytes: size, tenant: tenant))
        }
        let hold = JournalHold()
        // While the writer fails, held for want of room (or behind such a row): its patience
        // starts now, not at the writer's next look, which a busy file's 5 s busy timeout puts
        // up to 5 s later (tester25a-F1: dropped 10.5 s after it came, two looks later).
        let noRoomSince: ContinuousClock.Instant? = state.failure != nil ? .now : nil
        state.held.add(HeldAppends.Held(entry: entry, bytes: bytes, noRoomSince: noRoomSince, hold: hold))
        state.statistics.heldForShare += 1
        state.statistics.mostHeld = max(state.statistics.mostHeld, state.held.count)
        if state.writerGathering { condition.broadcast() }  // nothing more of this tenant's comes meanwhile
        condition.unlock()
        return .held(hold)
    }

    /// Called by the writer thread with `condition` locked, before it looks for work: queues
    /// the held entries that now fit their share (``appendOrHold(_:)``; all of them once the
    /// writer stops). While the rounds fail, queues those the queue has room for (the share is
    /// not kept then, ``State/admitsLarge(_:of:capacity:byteCapacity:)``), past the three
    /// quarters without their bodies (``bodiless(_:)``), and drops those for which the whole
    /// queue had no room for ``appendPatience`` or longer, as a plain ``append(_:)`` drops its
    /// entry (``HeldAppends/removeStarved(now:patience:admits:)``). Returns the holds to tell,
    /// with their tickets, once the lock is let go.
    private func admitHeld() -> [(JournalHold, JournalTicket)] {
        guard !state.held.isEmpty else { return [] }
        var told: [(JournalHold, JournalTicket)] = []
        let stopping = state.phase >= .stopping
        var held = HeldAppends()
        swap(&held, &state.held)  // out of `state` while the entries it takes go into the queue
        let failing = state.failure != nil && !stopping
        let now = ContinuousClock.now
        held.admit { held in
            let tenant = held.entry.tenant
            if stopping || state.admitsLarge(held.bytes, of: tenant, capacity: capacity, byteCapacity: byteCapacity) {
                told.append((held.hold, queueNow(held.entryQueued(now: now), bytes: held.bytes, tenant: tenant)))
                return true
            }
            // Failing, past the three quarters: without its bodies, when the whole queue has room.
            guard failing else { return false }
            let (bodiless, size) = Self.bodiless(held.entryQueued(now: now))
            guard state.hasRoom(for: size, capacity: capacity, byteCapacity: byteCapacity) else { return false }
            told.append((held.hold, queueNow(bodiless, bytes: size, tenant: tenant)))
            return true
        }
        if failing {
            let starved = held.removeStarved(now: now, patience: Self.appendPatience) { held in
                state.hasRoom(for: Self.bodiless(held.entry).bytes, capacity: capacity, byteCapacity: byteCapacity)
            }
            for entry in starved {
                state.statistics.droppedRows += 1
                state.failure?.droppedRows += 1
                if holdsWhatFails, let hit = entry.entry.mockHit { state.heldHits.add(hit.mockID, count: 1) }
                told.append((entry.hold, .dropped))
            }
            if !starved.isEmpty {
                let hit = holdsWhatFails ? "; their mock hits are kept" : ""
                log.error(
                    "journal: the queue is full and the writer failing: dropped \(starved.count.counted("held entry", "held entries")) that found no room for 2 s\(hit)")
            }
        } else {
            held.forgetNoRoom()
        }
        swap(&held, &state.held)
        return told
    }

    /// Puts `entry` (truncated here) in place of the queued entry behind `ticket`, while it is
    /// still queued (not yet taken for a round): for an answer that will not be sent after all
    /// (its client hung up while the entry was held, ``appendOrHold(_:)``), whose entry must
    /// say so (status 499, no mock hit). The queue's counts follow the new entry.
    /// - Returns: false when the entry is no longer queued (taken for a round, or dropped):
    ///   nothing was changed.
    public func replaceQueued(_ ticket: JournalTicket, with entry: consuming JournalEntry) -> Bool {
        var entry = entry
        let bytes = truncate(&entry)
        condition.lock()
        defer { condition.unlock() }
        // The queue holds the last `waiting` entries appended, in sequence order.
        let first = state.appended - UInt64(state.waiting) + 1
        guard ticket != .dropped, ticket.sequence >= first, ticket.sequence <= state.appended else { return false }
        let index = state.head + Int(ticket.sequence - first)
        let old = state.queue[index]
        guard old.tenant == entry.tenant else { return false }
        state.countTaken(Self.queuedSize(of: old), of: old.tenant)
        state.queue[index] = entry
        state.countQueued(bytes, of: entry.tenant)
        return true
    }

    /// Puts `entry` (truncated here) in place of the entry `hold` stands for while it is still
    /// held (``appendOrHold(_:)``; not yet queued nor dropped), keeping its place in its tenant's
    /// line: for an answer whose client hung up while it was held, which will not be sent
    /// (tester25a-F11: known only once the hold ended, the mock's use given back only then).
    /// - Returns: false when the entry is no longer held (nothing was changed): the hold is
    ///   told, or about to be, as usual.
    public func replaceHeld(_ hold: JournalHold, with entry: consuming JournalEntry) -> Bool {
        var entry = entry
        let bytes = truncate(&entry)
        condition.lock()
        defer { condition.unlock() }
        guard state.held.replace(hold, of: entry.tenant, with: entry, bytes: bytes) else { return false }
        hold.markReplaced()
        return true
    }

    /// Adds `problem` to the `problem` of the entry behind `ticket` (after its own, `; `
    /// between), in the writer's next round that finds the entry written: for what is known
    /// only after the entry was queued, such as an answer whose client hung up while it was
    /// being sent (docs/protocol.md#what-the-journal-records). The entry's row is found by its
    /// ticket (``JournalRowIDs``). Nothing when the entry was dropped (its batch failed, or it
    /// came after ``stop()``), or its row deleted meanwhile. Returns at once.
    /// - Parameters:
    ///   - problem: the sentence to add; nil adds none (an amendment of `filePath` only).
    ///   - filePath: what becomes of the entry's `filePath`, in the same UPDATE: a recording
    ///     placed only after the commit may have failed (``JournalFilePathChange/cleared``) or
    ///     gone to the planned name's `index` (``JournalFilePathChange/replaced(_:)``).
    public func amend(_ ticket: JournalTicket, problem: String?, filePath: JournalFilePathChange = .unchanged) {
        guard ticket != .dropped, problem != nil || filePath != .unchanged else { return }
        condition.lock()
        defer { condition.unlock() }
        guard state.phase < .stopped else { return }
        state.amendments.append(Amendment(sequence: ticket.sequence, problem: problem, filePath: filePath))
        state.amendmentsQueued += 1
        if state.writerIdle { condition.broadcast() }
    }

    /// Strict durability's wait: calls `done(true)` once the entry behind `ticket` is committed
    /// (together with the mock hit it carries), `done(false)` when its batch was dropped after
    /// three failed attempts or the writer stopped before writing it. Calls at once when that is
    /// already known; otherwise on the writer thread right after the commit, so every waiter of
    /// one transaction is resumed together (group commit; its size: the type's notes). `done`
    /// must return quickly.
    public func whenCommitted(_ ticket: JournalTicket, _ done: @escaping @Sendable (Bool) -> Void) {
        condition.lock()
        let known: Bool?
        if ticket == .dropped {
            known = false
        } else if ticket.sequence <= state.committed {
            known = !state.commitWaiters.wasDropped(ticket)
        } else {
            known = state.phase == .stopped ? false : nil
        }
        if known == nil {
            state.commitWaiters.add(ticket, done)
            // The waiter the gathering waits for ends it; later ones go into the round it starts or the next.
            if state.writerGathering && state.commitWaiters.count == state.waitersToCommit { condition.broadcast() }
        }
        condition.unlock()
        if let known { done(known) }
    }

    /// Blocks until every entry appended before this call is committed.
    public func flush() {
        _ = flush(through: nil)
    }

    /// Blocks until every entry of `tenant` appended before this call is committed: the
    /// entries queued before its last one too (they are written in order), but none queued
    /// after it, so another tenant's backlog queued behind never delays the tenant's reads
    /// (try9b F9: a flood of 64-KiB requests kept the queue at its 16 MiB, and a tenant with
    /// nothing queued waited for all of it).
    public func flush(for tenant: TenantID) {
        _ = flush(through: tenant)
    }

    /// ``flush(for:)`` that gives up at `deadline`: for a caller with a bound on its wait (an
    /// SQL query waits at most 5 seconds before it runs, flush included), while the writer can
    /// be held far longer (its transaction waits up to 5 s for a busy file, three times).
    /// - Returns: true when the entries are committed (or the writer stopped); false when
    ///   `deadline` came first.
    public func flush(for tenant: TenantID, before deadline: ContinuousClock.Instant) -> Bool {
        flush(through: tenant, before: deadline) == .committed
    }

    /// How long a journal read waits for the writer while its rounds fail
    /// (``flushForReading(_:)``): 5 s, the bound on a control request's wait for the database.
    public static let readPatience: Duration = .seconds(5)

    /// ``flush(for:)`` (``flush()`` when `tenant` is nil) for a journal read: waits as long as
    /// it takes while the writer's rounds succeed, but gives up once it has waited
    /// ``readPatience`` while they fail (``failure``).
    /// - Throws: ``JournalWaitError`` when it gave up.
    func flushForReading(_ tenant: TenantID?) throws {
        if let gaveUp = flushUnlessFailing(tenant) { throw gaveUp }
    }

    /// ``flushForReading(_:)`` that also gives up at `deadline`: for a read whose caller set a
    /// time (a wait's `timeout`, ``Journal/firstMatch(of:matching:after:timeLimit:flushingBefore:)``).
    /// - Returns: true when the entries are committed (or the writer stopped); false when
    ///   `deadline` came first.
    /// - Throws: ``JournalWaitError`` when it gave up after ``readPatience`` of failing rounds first.
    func flushForReading(_ tenant: TenantID?, before deadline: ContinuousClock.Instant) throws -> Bool {
        switch flush(through: tenant, before: deadline, givingUpWhileFailingAfter: Self.readPatience) {
        case .committed: return true
        case .deadlinePassed: return false
        case let .writerFailing(gaveUp): throw gaveUp
        }
    }

    /// ``flushForReading(_:)`` for a change that deletes the journal (a clear, a tenant's drop):
    /// while the writer fails, the change goes ahead after ``readPatience`` (what frees a full
    /// disk must not wait for the writer the full disk stops); the entries still queued are
    /// written after it and so are not deleted by it.
    /// - Returns: nil when the entries are committed; what a read would throw when it gave up.
    func flushUnlessFailing(_ tenant: TenantID?) -> JournalWaitError? {
        if case .writerFailing(let gaveUp) = flush(through: tenant, givingUpWhileFailingAfter: Self.readPatience) { return gaveUp }
        return nil
    }

    /// How a flush ended (``flush(through:before:givingUpWhileFailingAfter:)``).
    private enum FlushEnd: Equatable {
        /// The entries are committed, or the writer stopped.
        case committed
        /// The flush's deadline came first.
        case deadlinePassed
        /// The flush lasted its patience while the writer's rounds failed: what a read throws.
        case writerFailing(JournalWaitError)
    }

    /// The flush behind every other: waits until the entries of `tenant` appended before the call
    /// are committed (every tenant's when nil; the entries queued before its last one too, but
    /// none queued after it), and the amendments queued before it. With a `deadline`, gives up
    /// then. With a `patience`, gives up once the flush has lasted that long (counted from its
    /// start) while the writer's rounds fail (``failure``); while they succeed it waits as long
    /// as it takes, with no polling: the writer wakes its waiters when it notes a failure
    /// (``noteFailure(_:)``), as after each round.
    private func flush(
        through tenant: TenantID?, before deadline: ContinuousClock.Instant? = nil,
        givingUpWhileFailingAfter patience: Duration? = nil
    ) -> FlushEnd {
        let started = ContinuousClock.now
        condition.lock()
        defer { condition.unlock() }
        let target = tenant.map { state.lastQueued(of: $0) } ?? state.appended
        // Amendments are rare and not kept by tenant: a flush waits for all those queued before it.
        let amended = state.amendmentsQueued
        var pending: Bool { state.committed < target || state.amendmentsDone < amended }
        guard pending && state.phase < .stopped else { return .committed }
        state.flushers += 1
        defer { state.flushers -= 1 }
        if state.writerGathering { condition.broadcast() }  // a reader wants the commit now
        while pending && state.phase < .stopped {
            let now = ContinuousClock.now
            if let deadline, now >= deadline { return .deadlinePassed }
            var until = deadline
            if let patience, let failure = state.failure {
                let givingUp = started + patience
                guard now < givingUp else {
                    return .writerFailing(JournalWaitError(waitedMilliseconds: Int((now - started).milliseconds), failure: failure.reason))
                }
                until = min(until ?? givingUp, givingUp)
            }
            if let until {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (until - now).timeInterval))
            } else {
                condition.wait()
            }
        }
        return .committed
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
        return state.failure
    }

    /// The queue as it is now and the commits so far (for `/catbird/metrics`).
    public func statistics() -> JournalWriterStatistics {
        condition.lock()
        defer { condition.unlock() }
        var statistics = state.statistics
        statistics.queuedEntries = state.waiting
        statistics.queuedBytes = state.queuedBytes
        statistics.heldEntries = state.held.count
        statistics.heldHits = state.heldHits.hits + state.heldHitsInRound
        return statistics
    }

    private func run() {
        while true {
            condition.lock()
            let admitted = admitHeld()
            if !admitted.isEmpty {
                condition.unlock()
                for (hold, ticket) in admitted { hold.queued(ticket) }  // their answers leave
                condition.lock()
            }
            waitForWork()
            gather()
            if state.waiting == 0 && state.amendments.isEmpty && state.held.isEmpty && state.phase >= .stopping
                && (state.heldHits.isEmpty || state.givingUp) {
                if state.givenUp != (0, 0) {
                    let (entries, amendments) = state.givenUp
                    let amended = amendments == 1 ? "1 amendment of an earlier entry" : "\(amendments) amendments of earlier entries"
                    let what = amendments == 0 ? entries.counted("entry", "entries") : entries == 0 ? amended : "\(entries.counted("entry", "entries")) and \(amended)"
                    log.error("journal: stopping: \(what) not stored: an earlier round failed since the stop")
                }
                if !state.heldHits.isEmpty {
                    state.statistics.droppedHits += state.heldHits.count
                    log.error("journal: stopping with \(state.heldHits.describe) not stored; the mocks' rows in the database show fewer")
                    state.heldHits = HeldHits()
                }
                state.phase = .stopped
                let unanswered = state.commitWaiters.take(through: .max)
                condition.broadcast()
                condition.unlock()
                for done in unanswered { done(false) }
                return
            }
            if state.waiting == 0 && state.amendments.isEmpty && state.heldHits.isEmpty && state.failure != nil {
                condition.unlock()
                probe()  // nothing to write: see whether the database takes writes again (waitForWork's back-off)
                continue
            }
            // Strict durability after a round was dropped for a cause that lasts (a held write
            // lock, a full disk): the next round takes every entry queued (up to the queue's bytes)
            // and gets one attempt, so each withheld answer gets its 503 after one more attempt
            // (one 5 s busy timeout) rather than a round of four 60 KB rows at a time, 15 s each
            // (tester25a-F2: the 13th of 16 uploads answered after 62 s, another tenant's hit
            // queued behind them after 69 s).
            let failingStrict = !holdsWhatFails && state.failure != nil
            var batch = state.take(
                Self.maxBatchSize, bytes: failingStrict ? byteCapacity : Self.maxRoundBytes, spare: &spareBuffer)
            let first = state.committed + 1
            // Those whose entry is written by now or in this round; the rest wait for a later one.
            let amendments = state.amendments.filter { $0.sequence < first + UInt64(batch.count) }
            if !amendments.isEmpty { state.amendments.removeAll { $0.sequence < first + UInt64(batch.count) } }
            var roundBytes = 0
            batch.withUnsafeBufferPointer { entries in
                for index in entries.indices {  // in place, no copies
                    let size = Self.queuedSize(of: entries[index])
                    roundBytes += size
                    state.countTaken(size, of: entries[index].tenant)
                }
            }
            state.inRound = QueuedByTenant.Queued(entries: batch.count, bytes: roundBytes)
            state.roundSince = .now
            var hits = HeldHits()
            swap(&hits, &state.heldHits)
            state.heldHitsInRound = hits.hits
            let givingUp = state.givingUp
            condition.broadcast()  // room in the queue again
            condition.unlock()

            let outcome = givingUp
                ? .dropped("an earlier round failed since the stop")
                : write(batch, from: first, amending: amendments, hits: hits, attempts: failingStrict ? 1 : 3)
            if case .retry(let reason) = outcome {
                giveBack(batch, amendments: amendments, hits: hits, reason: reason)
                continue
            }
            let latestIDs: [TenantID: Int64]? = if case .committed(let ids) = outcome { ids } else { nil }
            let cause = if case .dropped(let cause) = outcome { cause } else { "" }
            // Before a flusher is told the batch is committed (below), so what it reads next is bounded by it.
            if let top = latestIDs?.values.max(), top > highest.load(ordering: .relaxed) { highest.store(top, ordering: .releasing) }
            // Noted before any flusher is told too (below): a tenant's drop flushes its rows, then
            // forgets what is remembered of it; noted after, its commit came back for good
            // (tester finding tester33a-F1: 2-15 % of dropped tenants kept both entries).
            if let latestIDs, !batch.isEmpty {
                waiters.committed(latestIDs)
                activity.journaled(latestIDs.keys)
            }

            condition.lock()
            var backsOff = false
            state.heldHitsInRound = 0  // written, or held again just below
            state.inRound = QueuedByTenant.Queued()
            state.roundSince = nil
            state.committed += UInt64(batch.count)
            state.amendmentsDone += UInt64(amendments.count)
            if latestIDs == nil, !batch.isEmpty {
                // Before noteFailure, whose back-off waits with the lock let go: a commit waiter
                // asking meanwhile finds its ticket at or below `committed` and must learn it was
                // dropped, not committed (strict durability: a request answered 200 with its row
                // dropped, the database file deleted; StorageFaultTests failed so under load).
                state.commitWaiters.dropped(first...state.committed)
            }
            if latestIDs == nil {
                state.statistics.droppedRows += batch.count
                state.statistics.droppedAmendments += amendments.count
                if givingUp {
                    state.givenUp.entries += batch.count
                    state.givenUp.amendments += amendments.count
                }
                // The rows are lost, their mocks' hits are not: a later round writes them.
                state.heldHits.add(hits)
                if holdsWhatFails { state.heldHits.add(hitsOf: batch) }
                if state.phase >= .stopComing {
                    state.givingUp = true
                } else {
                    // The cause, not the drop: health says what was dropped (T19B-F12: "1 row were dropped").
                    // Its back-off waits until the round's waiters are told (below).
                    recordFailure(cause, keptQueued: false, dropped: batch.count)
                    backsOff = true
                }
            } else {
                state.noteWrites()
            }
            // A dropped round's tickets are noted above (a round of amendments only has none).
            if latestIDs != nil, !batch.isEmpty { state.statistics.recordCommit(rows: batch.count) }
            let resumed = state.commitWaiters.take(through: state.committed)
            state.forgetCommitted()
            state.lastReleased = resumed.count
            condition.broadcast()
            condition.unlock()
            if !resumed.isEmpty { releasing { for done in resumed { done(latestIDs != nil) } } }
            if backsOff {
                // After the dropped round's waiters are told: while the back-off waited before
                // them, a waiter registered after the drop was told at once (its answer's 503
                // went out) while one registered before it, the hit's refund, waited up to 2 s
                // (StrictWithheldAnswerLimitTests saw the use not yet given back after the 503).
                condition.lock()
                backOff()
                condition.unlock()
            }
            // The written entries are freed only now: after the answers waiting for them left,
            // and outside the lock (their last use above is under it, where appenders wait).
            // Their buffer is kept for the next round (spareBuffer).
            batch.removeAll(keepingCapacity: batch.capacity <= 1024)
            spareBuffer = batch
        }
    }

    /// Called with `condition` locked: waits until there is something to write (entries,
    /// amendments, held mock hits) or ``stop()``. Held hits (``HeldHits``) wait while the
    /// rounds fail, but only for the back-off (``backOffDelay``): then they are tried on their
    /// own, so hits held after a round dropped for a lasting cause (the file moved away and put
    /// back, a statement error) reach the `mocks` rows once the database takes writes again
    /// even when no request comes to start a round (they waited for the next one, or the stop).
    /// With nothing at all to write while ``failure`` is recorded, it returns after the back-off
    /// too, for ``run()``'s ``probe()``: a dropped round leaves nothing queued, and the failure
    /// lasted until the next request (tester finding T19B-F12: an idle server stayed degraded
    /// for good after its file was put back).
    private func waitForWork() {
        // When held hits are retried, or the database checked (``probe()``), after a failure.
        var retryDue: Date?
        // Held hits start no round once a round failed after the stop began (``stopComing()``): ``stop()`` drops them.
        while state.waiting == 0 && state.amendments.isEmpty && state.phase < .stopping
            && (state.heldHits.isEmpty || state.failure != nil || state.givingUp) {
            state.writerIdle = true
            defer { state.writerIdle = false }
            guard !state.heldHits.isEmpty || state.failure != nil, !state.givingUp else {
                condition.wait()
                continue
            }
            let due = retryDue ?? Date(timeIntervalSinceNow: backOffDelay)
            retryDue = due
            if !condition.wait(until: due) { return }
        }
    }

    /// Called with `condition` locked and entries queued: waits up to ``gatherWindow`` for
    /// ``gatherRows`` entries, unless a flush waits or the writer is stopping, or half as many
    /// commit waiters wait as the last round released (at least one; then for
    /// ``waiterGatherWindow`` at most).
    private func gather() {
        guard state.waiting > 0 else { return }
        // After a round with waiters the next one is expected to have some too (only the waiter
        // that completes the count wakes the writer), so it is held for the shorter window.
        let window = state.lastReleased > 0 ? waiterGatherWindow : Self.gatherWindow
        let deadline = Date(timeIntervalSinceNow: window.timeInterval)
        state.writerGathering = true
        // Nor while half the queue's bytes wait: appends would soon block, and the rounds of
        // large entries (``maxRoundBytes``) are full long before ``gatherRows``.
        // Nor while entries are held for their tenant's share (``appendOrHold(_:)``): the queue
        // holds that tenant's share already, and its next entries come only once it is written
        // (gathering meanwhile halved an uploading tenant's rate: a 2 ms wait per 256 KiB round).
        while state.waiting < Self.gatherRows && state.queuedBytes < byteCapacity / 2 && state.held.isEmpty && state.phase < .stopping
            && state.flushers == 0 && state.commitWaiters.count < state.waitersToCommit {
            if !condition.wait(until: deadline) { break }
        }
        state.writerGathering = false
    }

    /// The bytes a round writes for an entry, as far as they can be told before: as
    /// ``queuedSize(of:)``, but a mock's or a file's answer body counts only the first time the
    /// round holds that tenant's answer by that mock or file (`counted` keeps which did): the
    /// journal stores a body a tenant's rows repeat once (``JournalBodies``), and a mock or file
    /// answers with the same bytes each time. Rounds are bounded by these (``maxRoundBytes``):
    /// counted whole every time, a 64 KiB mock body made rounds of 4 entries, and the 64 KiB-answer
    /// benchmark ran at a third of its speed; counted never, different tenants' answers by one
    /// large mock (each tenant stores its own) made rounds of the whole queue again (review).
    fileprivate static func roundSize(of entry: borrowing JournalEntry, counted: inout Set<String>) -> Int {
        let answer: String? =
            switch entry.answeredBy {
            case .mock: entry.mockHit.map { "\(entry.tenant.rawValue)\u{0}mock \($0.mockID)" }
            case .file: entry.filePath.map { "\(entry.tenant.rawValue)\u{0}file \($0)" }
            default: nil
            }
        let repeated = answer.map { !counted.insert($0).inserted } ?? false
        return queuedSize(of: entry) - (repeated ? entry.responseBody.count : 0)
    }

    /// The bytes an entry counts toward ``byteCapacity``: its (truncated) bodies, its header
    /// JSON, its URL and near misses kept as their own text.
    /// The `problem` of a large entry queued without its bodies while the writer failed
    /// (``appendOrHold(_:)``; its row keeps the bodies' sizes).
    public static let bodilessProblem =
        "the journal writer could not write (a busy or full file) and large rows filled the three quarters of its queue they may: "
        + "this row was kept without its bodies"

    /// `entry` without its bodies (their sizes kept), `problem` saying so
    /// (``bodilessProblem``), and its ``queuedSize(of:)``: how a large entry past the three
    /// quarters is queued while the writer fails (``appendOrHold(_:)``).
    private static func bodiless(_ entry: JournalEntry) -> (entry: JournalEntry, bytes: Int) {
        var entry = entry
        entry.truncateBodies(to: 0)
        entry.problem = entry.problem.map { $0 + "; " + bodilessProblem } ?? bodilessProblem
        return (entry, queuedSize(of: entry))
    }

    private static func queuedSize(of entry: borrowing JournalEntry) -> Int {
        var size = entry.requestBody.count + entry.responseBody.count
            + entry.requestHeaders.utf8.count + entry.responseHeaders.utf8.count + entry.url.utf8.count
        if case let .text(text)? = entry.nearMisses { size += text.utf8.count }
        return size
    }

    /// What became of a round (``write(_:from:amending:hits:)``).
    private enum Outcome {
        /// Committed: the highest id written per tenant.
        case committed([TenantID: Int64])
        /// Not written for a cause that passes (``SQLiteError/isTransient``): the writer gives the
        /// round back and tries it again later (the reason, for health).
        case retry(String)
        /// Not written and given up: the rows are lost (their mock hits are kept); the cause, for health.
        case dropped(String)
    }

    /// Writes `batch` (its first entry's sequence `first`), `amendments` (``amend(_:problem:filePath:)``)
    /// and `hits` (mock hits of entries dropped earlier) in one transaction, and counts their
    /// bytes (``bytes``) once committed, before letting go of the connection; notes the batch's
    /// row ids (``rowIDs``).
    /// - Returns: `.committed`; `.retry` after one attempt that failed for a cause that passes
    ///   (busy, locked, full, a write error: ``SQLiteError/isTransient``) unless the writer is stopping; `.dropped` after
    ///   `attempts` attempts that failed otherwise (3; 1 for a strict round while the writer
    ///   fails, ``run()``), after one when stopping, or after one when the
    ///   database file was deleted, replaced or truncated under the server
    ///   (``DatabaseFileLock/isFileFault(_:)``: waiting does not bring it back; T13-F8, tester21b-F13).
    private func write(
        _ batch: [JournalEntry], from first: UInt64, amending amendments: [Amendment], hits: HeldHits, attempts: Int
    ) -> Outcome {
        var lastError: (any Error)?
        for attempt in 1...attempts {
            do {
                return .committed(try database.use { db in
                    var run: JournalRowIDs.Run?
                    let written = try db.transaction {
                        var written = try batch.isEmpty ? JournalRecords.Written() : JournalRecords.insert(batch, into: db, bodies: &bodies)
                        // The batch's rows have consecutive ids, its highest the last one's (JournalRowIDs).
                        run = written.latestIDs.values.max().map {
                            JournalRowIDs.Run(firstSequence: first, count: UInt64(batch.count), firstID: $0 - Int64(batch.count) + 1)
                        }
                        if !amendments.isEmpty {
                            let rows = amendments.compactMap { amendment in
                                (run?.rowID(of: amendment.sequence) ?? rowIDs.rowID(of: amendment.sequence)).map {
                                    ($0, amendment.problem, amendment.filePath)
                                }
                            }
                            try JournalRecords.amend(rows, in: db, written: &written)
                        }
                        try hits.write(into: db)
                        return written
                    }
                    if let run { rowIDs.add(run) }
                    bytes.committed(written)
                    return written.latestIDs
                })
            } catch {
                bodies.removeAll()  // the rolled-back transaction's body ids may be reused
                let what = Self.describe(batch, amendments, hits)
                if DatabaseFileLock.isFileFault(error), let moved = error as? SQLiteError {
                    let reason = moved.environmentalReason ?? moved.description
                    log.error("journal: \(Self.describeDrop(batch, amendments, hits)): \(reason)")
                    return .dropped(reason)
                }
                if holdsWhatFails, let sqlite = error as? SQLiteError, sqlite.isTransient {
                    let reason = sqlite.environmentalReason ?? sqlite.description
                    if isStopping {
                        log.error("journal: stopping: \(what) not stored: \(reason)")
                        return .dropped(reason)
                    }
                    log.error("journal: writing \(what) failed, kept queued to try again: \(reason)")
                    return .retry(reason)
                }
                if isStopping {
                    // The attempt under way ends the round: another would hold the stop for a
                    // busy timeout more each (strict durability, tester21b-F14: 14 s, not 5).
                    let sqlite = error as? SQLiteError
                    let reason = sqlite?.environmentalReason ?? sqlite?.description ?? "\(error)"
                    log.error("journal: stopping: \(what) not stored: \(reason)")
                    return .dropped(reason)
                }
                log.error("journal: writing \(what) failed (attempt \(attempt) of \(attempts)): \(error)")
                lastError = error
                if attempt < attempts { usleep(useconds_t(attempt * 50_000)) }
            }
        }
        log.error("journal: \(Self.describeDrop(batch, amendments, hits)) after \(attempts.counted("failed attempt", "failed attempts"))")
        let sqlite = lastError as? SQLiteError
        return .dropped(sqlite?.environmentalReason ?? sqlite?.description ?? lastError.map { "\($0)" } ?? "a write failed")
    }

    /// Whether ``stop()`` or ``stopComing()`` was called.
    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.phase >= .stopComing
    }

    /// Puts a failed round back at the front of the queue (its entries keep their sequences),
    /// with its amendments and hits, and notes the failure (``noteFailure(_:)``).
    private func giveBack(_ batch: [JournalEntry], amendments: [Amendment], hits: HeldHits, reason: String) {
        condition.lock()
        defer { condition.unlock() }
        state.queue.insert(contentsOf: batch, at: state.head)
        state.inRound = QueuedByTenant.Queued()
        state.roundSince = nil
        for entry in batch { state.countQueued(Self.queuedSize(of: entry), of: entry.tenant) }
        state.amendments.insert(contentsOf: amendments, at: 0)
        state.heldHits.add(hits)
        state.heldHitsInRound = 0
        noteFailure(reason)
    }

    /// Called with `condition` locked after a failed round (not while stopping): notes it in
    /// ``failure`` (its `reason`, whether its rows stay queued, how many were `dropped`) and
    /// wakes the waiters, so that a flush with a patience (``flushUnlessFailing(_:)``) and an
    /// append waiting for room start counting it now rather than at their next wake-up; then
    /// waits before the next attempt (``backOff()``).
    private func noteFailure(_ reason: String, keptQueued: Bool = true, dropped: Int = 0) {
        recordFailure(reason, keptQueued: keptQueued, dropped: dropped)
        backOff()
    }

    /// ``noteFailure(_:keptQueued:dropped:)`` without its back-off. Called with `condition` locked.
    private func recordFailure(_ reason: String, keptQueued: Bool, dropped: Int) {
        let earlier = state.failure
        state.failure = JournalWriterFailure(
            since: earlier?.since ?? Date(), reason: reason, rounds: (earlier?.rounds ?? 0) + 1, keptQueued: keptQueued,
            droppedRows: (earlier?.droppedRows ?? 0) + dropped)
        condition.broadcast()
    }

    /// Called on the writer thread, `condition` not locked, when ``failure`` is recorded and
    /// nothing is left to write (the failed rounds were dropped): the write a round would make,
    /// with nothing in it (``probeStatement``, in a transaction through the write connection,
    /// which first checks that the file is still at its path). When it commits, the failure
    /// ends (health answers 200 again without waiting for a request, T19B-F12); when it fails,
    /// the failure stays and the next check waits longer (``JournalWriterFailure/probes``).
    /// Its busy timeout is short (100 ms): a check waits for no lock, the next one comes.
    private func probe() {
        let works = (try? database.use { db in
            try db.withBusyTimeout(.milliseconds(100)) { try db.transaction { try db.execute(Self.probeStatement) } }
        }) != nil
        condition.lock()
        let ended = works ? state.failure : nil
        if works {
            state.noteWrites()
            condition.broadcast()
        } else {
            state.failure?.probes += 1
        }
        condition.unlock()
        if let ended { log.warning("journal: the database takes writes again (its writes failed since \(Timestamp.string(from: ended.since)))") }
    }

    /// ``probe()``'s write: one row rewritten as it is (the latest migration's), so the commit writes a
    /// page, as a round does, and counts as a change (``CatbirdStorage/StorageFaults/clear()``), but
    /// changes nothing a reader sees.
    static let probeStatement = "UPDATE schema_migrations SET name = name WHERE version = (SELECT max(version) FROM schema_migrations)"

    /// Seconds to wait after a failed round, read with `condition` locked: 0.1 after the first
    /// failure in a row (``failure``'s `rounds`, and its failed `probes`), doubling up to 2.
    private var backOffDelay: TimeInterval {
        let rounds = min((state.failure?.rounds ?? 1) + (state.failure?.probes ?? 0), 6)
        return min(0.1 * Double(1 << (rounds - 1)), 2.0)
    }

    /// Called with `condition` locked after a failed round: waits ``backOffDelay``, or until
    /// ``stop()``.
    private func backOff() {
        let deadline = Date(timeIntervalSinceNow: backOffDelay)
        while state.phase < .stopping {
            if !condition.wait(until: deadline) { break }
        }
    }

    /// A dropped round, for its log lines (the entries and amendments are lost; the hits are held
    /// again for a later round, ``HeldHits``): `dropped 3 entries`, `dropped 3 entries (2 hits
    /// of 1 mock kept for a later round)`, `could not write 3 hits of 1 mock (kept for a later
    /// round)` (a round of held hits only).
    private static func describeDrop(_ batch: [JournalEntry], _ amendments: [Amendment], _ hits: HeldHits) -> String {
        let kept = hits.isEmpty ? "" : " (\(hits.describe) kept for a later round)"
        if batch.isEmpty && amendments.isEmpty && !hits.isEmpty { return "could not write \(hits.describe) (kept for a later round)" }
        return "dropped \(describe(batch, amendments))\(kept)"
    }

    /// What a round writes, for its log lines: `1 entry`, `3 entries`, `3 entries and 2 amendments of
    /// earlier entries` (their `problem` or `filePath`), `1 amendment of an earlier entry` (a
    /// round of amendments only).
    private static func describe(_ batch: [JournalEntry], _ amendments: [Amendment], _ hits: HeldHits = HeldHits()) -> String {
        let entries = batch.count.counted("entry", "entries")
        let amended = amendments.count == 1 ? "1 amendment of an earlier entry" : "\(amendments.count) amendments of earlier entries"
        var parts = batch.isEmpty ? [] : [entries]
        if !amendments.isEmpty { parts.append(amended) }
        if !hits.isEmpty { parts.append(hits.describe) }
        if parts.isEmpty { parts = [entries] }
        return parts.joined(separator: " and ")
    }
}
