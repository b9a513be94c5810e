import CatbirdSupport
import Dispatch
import Synchronization

/// Waits for a tenant's journal to grow without holding a thread: a waiter is a callback the
/// ``JournalWriter`` calls after it commits entries of that tenant, or a timer calls when the
/// time is up.
///
/// ```swift
/// let latest = try journal.latestID(of: tenant)      // before looking
/// // … look at the journal; nothing of interest yet …
/// journal.waiters.wait(for: tenant, after: latest, timeout: .seconds(10)) { wake in
///     // .committed: entries with id > latest are readable now; .timedOut; .reset: cleared or dropped.
///     pool.run { lookAgain() }                         // never block here
/// }
/// ```
///
/// Reading the latest id *before* looking, then waiting after it, loses no entry: one committed
/// between the two wakes the waiter at once.
public final class JournalWaiters: Sendable {
    /// Why a waiter is woken.
    public enum Wake: Sendable, Equatable {
        /// Entries of its tenant past its id are committed (or were already).
        case committed
        /// Its timeout passed, or the journal stopped.
        case timedOut
        /// Its tenant's journal was cleared or the tenant dropped (``wakeAfterReset(of:)``):
        /// a reader showing its entries should look again at once (tester finding
        /// tester45a-F10: a long poll of an empty journal, whose deletion floor a clear does
        /// not move, ran to its end instead).
        case reset
    }

    private struct Waiter {
        let after: Int64
        let wake: @Sendable (Wake) -> Void
    }

    private struct State {
        var nextTicket: UInt64 = 0
        var waiters: [TenantID: [UInt64: Waiter]] = [:]
        /// The highest id committed per tenant in this generation of ``rememberFor`` and the
        /// last one (`previous`): a waiter that registers after the commit it read before is
        /// woken at once, while tenants no longer writing are let go (tester finding T11-F3:
        /// one entry per tenant ever seen was kept for the process's life, 250,000 shards' worth).
        var latest: [TenantID: Int64] = [:]
        var previous: [TenantID: Int64] = [:]
        var generationStarted = ContinuousClock.now
        var stopped = false

        /// The highest id committed for `tenant` that is still remembered, 0 when none.
        func latestID(of tenant: TenantID) -> Int64 {
            max(latest[tenant] ?? 0, previous[tenant] ?? 0)
        }
    }

    private let state = Mutex(State())
    /// How long a commit's id is remembered at least: a caller reads the latest id and then
    /// registers its waiter at once, so a commit between the two is remembered as long as that
    /// takes less than this (default 60 s); at most twice as long.
    let rememberFor: Duration

    public init() {
        rememberFor = .seconds(60)
    }

    /// A waiters' list that remembers commits' ids for `rememberFor` at least (tests).
    init(rememberFor: Duration) {
        self.rememberFor = rememberFor
    }

    /// One registered waiter, for ``cancel(_:)``.
    public struct Ticket: Sendable {
        fileprivate let tenant: TenantID
        fileprivate let number: UInt64
    }

    /// Calls `wake` exactly once: with ``Wake/committed`` as soon as entries of `tenant` with an
    /// id above `after` are committed (at once if they already are), ``Wake/timedOut`` after
    /// `timeout` or when the journal stops, ``Wake/reset`` when the tenant's journal is cleared
    /// or the tenant dropped; never once ``cancel(_:)`` took it back. `wake` runs on the journal
    /// writer's thread or a timer's thread and must return quickly: hand further work to
    /// another thread.
    /// - Parameters:
    ///   - after: a journal row id (``Journal/latestID(of:)`` read before the caller looked).
    ///   - timeout: how long to wait at most.
    /// - Returns: the waiter's ticket; nil when `wake` was called at once (entries after
    ///   `after` were committed already, or the journal stopped).
    @discardableResult
    public func wait(
        for tenant: TenantID, after: Int64, timeout: Duration, wake: @escaping @Sendable (Wake) -> Void
    ) -> Ticket? {
        let ticket: UInt64? = state.withLock { state in
            if state.stopped || state.latestID(of: tenant) > after { return nil }
            state.nextTicket += 1
            state.waiters[tenant, default: [:]][state.nextTicket] = Waiter(after: after, wake: wake)
            return state.nextTicket
        }
        guard let ticket else {
            wake(state.withLock { $0.stopped } ? .timedOut : .committed)
            return nil
        }
        defer { scheduleTimeout(of: ticket, tenant, after: timeout) }
        return Ticket(tenant: tenant, number: ticket)
    }

    /// Takes waiter `ticket` back without waking it, so that what its `wake` holds is let go
    /// now (its request's client left: tester43a-F5). Its timer still runs out, finding nothing.
    /// - Returns: false when it was woken (or taken back) already.
    @discardableResult
    public func cancel(_ ticket: Ticket) -> Bool {
        take(ticket.number, of: ticket.tenant) != nil
    }

    private func scheduleTimeout(of ticket: UInt64, _ tenant: TenantID, after timeout: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) { [self] in
            take(ticket, of: tenant)?.wake(.timedOut)
        }
    }

    /// Removes waiter `ticket` of `tenant`, nil when it is gone already.
    private func take(_ ticket: UInt64, of tenant: TenantID) -> Waiter? {
        state.withLock { state in
            defer { if state.waiters[tenant]?.isEmpty == true { state.waiters[tenant] = nil } }
            return state.waiters[tenant]?.removeValue(forKey: ticket)
        }
    }

    /// Called by the writer after a commit: `latest` is the highest id committed per tenant.
    func committed(_ latest: [TenantID: Int64]) {
        var woken: [Waiter] = []
        let now = ContinuousClock.now
        state.withLock { state in
            if now - state.generationStarted >= rememberFor {
                state.previous = state.latest
                state.latest = [:]
                state.generationStarted = now
            }
            for (tenant, id) in latest {
                state.latest[tenant] = max(state.latest[tenant] ?? 0, id)
                guard var waiting = state.waiters[tenant] else { continue }
                for (ticket, waiter) in waiting where waiter.after < id {
                    woken.append(waiter)
                    waiting[ticket] = nil
                }
                state.waiters[tenant] = waiting.isEmpty ? nil : waiting
            }
        }
        for waiter in woken { waiter.wake(.committed) }
    }

    /// Wakes every waiter with ``Wake/timedOut`` and refuses new ones (they are woken with it at once).
    func stop() {
        let all = state.withLock { state in
            state.stopped = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for waiter in all { waiter.wake(.timedOut) }
    }

    /// Wakes `tenant`'s waiters (every tenant's when nil) with ``Wake/reset`` after its journal was
    /// cleared or it was dropped: a long poll of the journal that was shown then looks again,
    /// finds the tenant's deletion floor moved (``JournalDeletions/hiddenThrough(_:)``) and
    /// answers at once, so a page showing the entries learns they are gone (tester finding
    /// tester34b-F3: a dropped tenant's rows and bodies stayed on an open page until its 25-s
    /// poll ended).
    func wakeAfterReset(of tenant: TenantID?) {
        let woken = state.withLock { state -> [Waiter] in
            guard let tenant else {
                defer { state.waiters = [:] }
                return state.waiters.values.flatMap(\.values)
            }
            return state.waiters.removeValue(forKey: tenant).map { Array($0.values) } ?? []
        }
        for waiter in woken { waiter.wake(.reset) }
    }

    /// Forgets the tenant's remembered commits (it was dropped: what they name is gone). A
    /// caller that read an id before and waits after it is woken by the next commit, as before.
    func forget(_ tenant: TenantID) {
        state.withLock { state in
            state.latest[tenant] = nil
            state.previous[tenant] = nil
        }
    }

    /// Forgets every tenant's remembered commits (every tenant was dropped), their storage too:
    /// 64,000 dropped tenants' ids otherwise stayed until two generations of commits had passed,
    /// and for ever on a server that no request reached after the drop.
    func forgetEveryTenant() {
        state.withLock { state in
            state.latest = [:]
            state.previous = [:]
        }
    }

    /// Per-tenant entries held: remembered commits and tenants with waiters (for
    /// `/catbird/metrics`, ``TenantDirectory/memoryEntries()``).
    var tenantEntries: (remembered: Int, waiting: Int) {
        state.withLock { ($0.latest.count + $0.previous.count, $0.waiters.count) }
    }

    /// How many tenants' latest committed ids are remembered (for tests and diagnostics).
    var rememberedTenants: Int {
        state.withLock { state in state.latest.keys.filter { state.previous[$0] == nil }.count + state.previous.count }
    }

    /// How many waiters are registered (for tests and diagnostics).
    public var count: Int {
        state.withLock { $0.waiters.values.reduce(0) { $0 + $1.count } }
    }
}
