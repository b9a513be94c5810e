import CatbirdSupport
import Foundation

/// The writer's queue and its bookkeeping (``JournalWriter/State``): read and written only
/// while the writer's `condition` is locked.
extension JournalWriter {
    struct State {
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

        /// The round under way's failed attempts while another follows (``JournalWriter/failure``
        /// shows it when no round has failed): with strict durability each answer waits for its
        /// round through 3 attempts of a 5 s busy timeout each, and health said `ok` for those
        /// 15 s (tester finding tester39b-F1). Only health reads it: appends, flushes and the next
        /// round go by ``failure``, as before. Cleared when the round ends.
        var failedAttempt: JournalWriterFailure?

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
        /// ``hasRoom(for:capacity:byteCapacity:)`` while the writer does not fail: the check of
        /// every append. `mutating` only so that the writer's `state`, a stored property of a
        /// class, is read in place: a non-mutating method called on it is given a copy of the
        /// whole struct, which retains and releases each of its arrays and dictionaries (callgrind:
        /// about 1,300 instructions of every journaled request's worker).
        mutating func takesUsualAppend(of bytes: Int, capacity: Int, byteCapacity: Int) -> Bool {
            guard case .none = failure else { return false }
            return hasRoom(for: bytes, capacity: capacity, byteCapacity: byteCapacity)
        }

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
}
