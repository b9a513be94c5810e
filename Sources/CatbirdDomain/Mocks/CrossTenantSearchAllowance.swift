import CatbirdSupport
import Synchronization

/// How much of the workers' time the searches of other tenants' mocks for default-tenant
/// misses (`matchingTenants`, ``MockStore/matchingTenantsSearch(method:target:headerValue:body:until:regexpDeadline:slice:)``)
/// may take together: ``perSecond`` of CPU time in each second, whatever the rate of misses.
///
/// Each search stops after ``MockStore/matchingTenantTimeLimit`` (2 ms), but nothing bounded
/// how many ran: near a fleet's 10,000 mocks every default-tenant 404 cost 2.7 ms of a worker,
/// never memoized (its answer depends on timing), so one client without a parallel id polling an
/// unmocked URL on 4 connections (about 600 misses a second) cut every other tenant from about
/// 25,000 requests a second to 200–350 (tester finding tester30b-F2). Past the allowance a miss
/// is answered without the search, and its reason says why.
public final class CrossTenantSearchAllowance: Sendable {
    /// CPU time all searches may take in one second: 50 ms (5 % of one core).
    public static let perSecond = Duration.milliseconds(50)

    private struct Window {
        var start: ContinuousClock.Instant
        var spent: Duration = .zero
    }

    private let window = Mutex(Window(start: .now))

    /// Whether a search may start now: the CPU time charged in the current second is under
    /// ``perSecond`` (a search started under it may end a little past it).
    func mayStart() -> Bool {
        let now = ContinuousClock.now
        return window.withLock { window in
            if now - window.start >= .seconds(1) { window = Window(start: now) }
            return window.spent < Self.perSecond
        }
    }

    /// Charges the CPU time a search took.
    func charge(_ cpu: Duration) {
        window.withLock { $0.spent += cpu }
    }
}
