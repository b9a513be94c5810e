import Foundation
import Synchronization

/// A tenant's work in progress that the `tenants` table does not show: requests answered later
/// (a mock's `delay`, the matching lane, an upstream call) until their journal entry is queued,
/// parked waits and long polls until they answer, and control calls (``touch(_:)`` for one
/// answered at once); and its journaled requests (``journaled(_:)``, told by the journal writer
/// for each committed round). While a tenant has work in flight, it is not idle, and its idle
/// time counts from the end of the last piece of work, so `--tenant-ttl` never drops a tenant
/// in the middle of its work (docs/operations.md#retention).
///
/// Times are on the monotonic clock (`ContinuousClock`), not the wall clock the `tenants`
/// table's `last_activity_at` is written in: a tenant this process saw at work is judged by
/// how long ago that really was, so a step of the wall clock (NTP's correction after a VM
/// resume, a snapshot restore) does not make it idle (tester finding tester21b-F5: a clock
/// stepped 8 days forward dropped a tenant active 2 s before, mocks and journal).
///
/// In memory only: after a restart nothing is in flight, and a tenant not seen since is judged
/// by its row alone.
public final class TenantActivity: Sendable {
    private struct Work {
        var inFlight = 0
        /// When the last piece of work ended (nil while the first is still in flight).
        var lastEnded: ContinuousClock.Instant?
        /// The tenant was dropped while this work was in flight (its own drop call, say): the
        /// entry goes when the work ends, unless new work began since.
        var dropped = false
    }

    private let work = Mutex<[TenantID: Work]>([:])
    /// Whether work that ends as it begins is noted (``touch(_:)``, ``journaled(_:)``): only
    /// while `--tenant-ttl` asks for idle times (``tracksIdleTimes()``). Without it no pass would
    /// ever forget them: each made-up parallel id of a quick control call would add an entry,
    /// and every such call and journal round would take the map's lock (re-read of T14B-F7).
    private let tracksIdleFlag = Atomic<Bool>(false)

    public init() {}

    /// Whether idle times are tracked (``tracksIdleTimes()``): work noted only for them (a
    /// request's body on its way) is not noted otherwise.
    public var tracksIdle: Bool {
        tracksIdleFlag.load(ordering: .relaxed)
    }

    /// Has ``touch(_:)`` and ``journaled(_:)`` note tenants from now on: call once when
    /// `--tenant-ttl` is set.
    public func tracksIdleTimes() {
        tracksIdleFlag.store(true, ordering: .relaxed)
    }

    /// Work of `tenant` starts; call ``end(_:)`` exactly once when it is done.
    public func begin(_ tenant: TenantID) {
        work.withLock { work in
            work[tenant, default: Work()].inFlight += 1
            work[tenant]?.dropped = false
        }
    }

    /// Work of `tenant` that ``begin(_:)`` started is done (for a request: its journal entry
    /// is queued, so the row's own activity time takes over).
    public func end(_ tenant: TenantID) {
        let now = ContinuousClock.now
        work.withLock { work in
            guard var entry = work[tenant] else { return }
            entry.inFlight = max(entry.inFlight - 1, 0)
            entry.lastEnded = now
            work[tenant] = entry.dropped && entry.inFlight == 0 ? nil : entry
        }
    }

    /// A piece of work of `tenant` that began and ended now: a control call answered at once on
    /// a worker (`GET /catbird/api/mocks`, a quick journal page), which changes no row and so
    /// leaves `last_activity_at` as it was. Without it a tenant that only polled its mocks was
    /// dropped as idle while one polling its journal on a control pool was kept (tester finding
    /// T14B-F7).
    /// Does nothing unless ``tracksIdleTimes()`` was called, and for the default tenant (never dropped).
    public func touch(_ tenant: TenantID) {
        guard tracksIdle, !tenant.isDefault else { return }
        let now = ContinuousClock.now
        work.withLock { $0[tenant, default: Work()].lastEnded = now }
    }

    /// The tenants whose requests a journal round just committed: work of each that ended now
    /// (as ``touch(_:)``), the time their rows' `last_activity_at` says on the wall clock. The
    /// default tenant, never dropped, is left out. Called on the journal writer's thread, once
    /// per committed round, never on a request's.
    func journaled(_ tenants: some Sequence<TenantID>) {
        guard tracksIdle else { return }
        let now = ContinuousClock.now
        work.withLock { work in
            for tenant in tenants where !tenant.isDefault { work[tenant, default: Work()].lastEnded = now }
        }
    }

    /// Whether `tenant` has work in flight, or ended some less than `idle` ago (monotonic clock).
    func isBusy(_ tenant: TenantID, idleFor idle: Duration) -> Bool {
        let cutoff = ContinuousClock.now - idle
        return work.withLock { work in
            guard let entry = work[tenant] else { return false }
            return entry.inFlight > 0 || (entry.lastEnded.map { $0 >= cutoff } ?? true)
        }
    }

    /// Forgets `tenant`'s ended work once it was dropped (its idle time no longer matters: a
    /// new tenant of the same id starts with its own row); work still in flight stays until it
    /// ends (a tenant's own drop call is such work: its entry stayed for the whole
    /// `--tenant-ttl`, tester finding tester32b-F3).
    func forget(_ tenant: TenantID) {
        work.withLock { work in
            guard let entry = work[tenant] else { return }
            if entry.inFlight == 0 { work[tenant] = nil } else { work[tenant]?.dropped = true }
        }
    }

    /// Forgets every tenant's ended work (every tenant was dropped, or no `--tenant-ttl` asks
    /// for idle times), its storage too; work still in flight stays. Without it, each tenant
    /// that had an answer given later kept its entry for the whole TTL (7 days by default),
    /// and for ever without one.
    func forgetEnded() {
        work.withLock { work in work = work.filter { $0.value.inFlight > 0 } }
    }

    /// Forgets the ended work of the tenants `matching` selects; work still in flight stays.
    func forgetEnded(where matching: (TenantID) -> Bool) {
        work.withLock { work in work = work.filter { $0.value.inFlight > 0 || !matching($0.key) } }
    }

    /// How many tenants' work is held in memory (for `/catbird/metrics`).
    public var tenantEntries: Int {
        work.withLock { $0.count }
    }

    /// Forgets the tenants with nothing in flight whose last work ended before `cutoff` (they
    /// no longer hold anything), so the map holds only recent tenants.
    func forget(endedBefore cutoff: ContinuousClock.Instant) {
        work.withLock { work in
            work = work.filter { $0.value.inFlight > 0 || ($0.value.lastEnded.map { $0 >= cutoff } ?? true) }
        }
    }
}
