import CatbirdMatching
import CatbirdSupport

/// The search of other tenants' mocks for a default-tenant miss (a request without a parallel
/// id): which shards hold a mock that matches it (`matchingTenants`, docs/matching.md#near-misses).
///
/// It reads the shards' tables in id order a few at a time (``TenantTables``), so its cost
/// is bounded by ``nearMissTenantLimit`` tables and ``matchingTenantTimeLimit``, not by the
/// number of tenants: with 20,000 tenants, copying and sorting the whole map per miss took
/// 26 ms of a shared worker before the time limit was even looked at, and lost the hint
/// (tester finding try8b F2).
extension MockStore {
    /// What ``matchingTenantsSearch(method:target:headerValue:body:until:regexpDeadline:slice:)`` found.
    struct MatchingTenantsSearch {
        /// Shards with a mock that matches the request, at most ``matchingTenantLimit``: those whose
        /// matching mock is more than a catch-all (``CatbirdMatching/RequestPattern/isCatchAll``)
        /// first, then those whose mock would answer anything, each in id order.
        var tenants: [TenantID] { Array((specific + catchAll).prefix(MockStore.matchingTenantLimit)) }
        /// Shards whose first matching mock is more than a catch-all, in id order.
        var specific: [TenantID] = []
        /// Shards whose first matching mock is a catch-all, in id order: named after the others
        /// (tester finding tester54b-F2: three shards' catch-alls, first by id, crowded out the one
        /// shard whose exact mock the app was aimed at).
        var catchAll: [TenantID] = []
        /// Whether every shard that may be searched was: false when a time limit ended the search first.
        var searchedAll = true
        /// Whether the answer may depend on more than the request and the tables: a time limit
        /// ended the search, or a regular expression was stopped and counted as not matching.
        var cutShort = false
        /// Whether tenants holding mocks were left unsearched past ``nearMissTenantLimit``.
        var pastLimit = false
        /// Whether more shards match than ``tenants`` names (the search stops at the first one
        /// past ``matchingTenantLimit`` more-than-catch-all matches; tester finding
        /// tester21a-F10: the list stopped at 3 unsaid).
        var more: Bool { specific.count + catchAll.count > MockStore.matchingTenantLimit }
        /// Whether the search need not go on: more than ``matchingTenantLimit`` shards matched with
        /// more than a catch-all, so later shards could not be named.
        var isSettled: Bool { specific.count > MockStore.matchingTenantLimit }
        /// Whether the search did not run: such searches had used their time in the current
        /// second (``CrossTenantSearchAllowance``).
        var overAllowance = false
    }

    /// Shards' tables copied out per look at the tenant map: 32 (a few microseconds of its lock).
    static let matchingTenantBatch = 32

    /// The shards (every tenant but the default one) holding a mock that matches the request,
    /// the same rules as matching, no hit counted: the first ``nearMissTenantLimit`` shards by
    /// id that hold mocks are tried, until more than ``matchingTenantLimit`` match with more than
    /// a catch-all (``MatchingTenantsSearch/tenants`` names those first). Stops when
    /// ``matchingTenantTimeLimit`` of the thread's CPU time has gone since the call (checked
    /// before each shard, the cheap wall clock first: the CPU time cannot have reached the
    /// limit before the wall clock has) or at `deadline` (the whole comparison's). The CPU
    /// clock's start is read only when there is a shard to search: unlike the wall clock (read
    /// in the vDSO), `CLOCK_THREAD_CPUTIME_ID` is a system call, which a default-tenant miss
    /// of a server without shards (every request without a parallel id) paid for nothing. Regular
    /// expressions run until `regexpDeadline` within `slice` (``TenantMocks/firstMatch(method:target:headerValue:body:deadline:slice:outOfTime:)``).
    /// Not started when such searches have used their time in the current second
    /// (``CrossTenantSearchAllowance``): then `overAllowance`.
    func matchingTenantsSearch(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8], until deadline: ContinuousClock.Instant,
        regexpDeadline: ContinuousClock.Instant, slice: RegexpSlice
    ) -> MatchingTenantsSearch {
        var search = MatchingTenantsSearch()
        let cpuClockFrom = ContinuousClock.now.advanced(by: Self.matchingTenantTimeLimit)
        // One shard's patterns stop within the search's time too: the limit is checked between
        // shards, and one long wildcard search took 14 ms past it (tester30b-F4 with F2).
        let regexpDeadline = min(regexpDeadline, cpuClockFrom)
        // Set with the first batch of shards (microseconds after the call), when there is one.
        var cpuDeadline = Duration.zero
        /// Whether the search may go on: one clock read, two once the wall clock is past `cpuClockFrom`.
        func inTime() -> Bool {
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            return now < cpuClockFrom || ThreadCPUTime.now() < cpuDeadline
        }
        var searched = 0
        var after: TenantID?
        var cpuStarted: Duration?
        defer { if let cpuStarted { crossTenantSearches.charge(ThreadCPUTime.now() - cpuStarted) } }
        batches: while true {
            let batch = shardTables(after: after, limit: Self.matchingTenantBatch)
            if after == nil {
                guard !batch.isEmpty else { break }
                guard crossTenantSearches.mayStart() else {
                    search.searchedAll = false
                    search.cutShort = true
                    search.overAllowance = true
                    break
                }
                let started = ThreadCPUTime.now()
                cpuStarted = started
                cpuDeadline = started + Self.matchingTenantTimeLimit
            }
            for (other, table) in batch {
                guard !search.isSettled else { break batches }
                guard searched < Self.nearMissTenantLimit else {
                    if !table.isEmpty { search.pastLimit = true } else { continue }
                    break batches
                }
                guard inTime() else {
                    search.searchedAll = false
                    search.cutShort = true
                    break batches
                }
                // Only tables that could match count toward the limit: not an empty one (a tenant
                // whose last mock went, or whose first `update` failed after its table was made),
                // which would push a matching tenant out unseen.
                guard !table.isEmpty else { continue }
                searched += 1
                if let id = table.firstMatch(
                    method: method, target: target, headerValue: headerValue, body: body, deadline: regexpDeadline, slice: slice,
                    outOfTime: { _ in
                        // A shard not searched to its end (a pattern stopped, or the worker's
                        // slice spent in its header lists: tester30c-F8) was not searched fully.
                        search.cutShort = true
                        search.searchedAll = false
                    }
                ) {
                    if table.mock(id: id)?.pattern.source.isCatchAll == true {
                        // Kept only while it may still be named: the list needs no more than its limit.
                        if search.catchAll.count <= Self.matchingTenantLimit { search.catchAll.append(other) }
                    } else {
                        search.specific.append(other)
                    }
                }
            }
            guard batch.count == Self.matchingTenantBatch, let last = batch.last else { break }
            after = last.tenant
        }
        return search
    }
}
