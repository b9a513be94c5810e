import CatbirdDomain
import CatbirdHTTP

extension HTTPWorkPool where Key == TenantID {
    /// Queues `work` among `tenant`'s jobs while the call holds `reservation`, its place among
    /// the tenant's admitted calls (``TenantAdmission``): once `work` has returned, the place is
    /// given back, and only then does `deliver` get what `work` returned, on the same thread, to
    /// send the answer. So the order is the pool's, not each caller's: a client that sends its
    /// next request as soon as it has read this answer always finds its own place free. (Each
    /// route let go by hand; while one did it after the answer, two SQL queries sent at once
    /// right after both answers got a 429 "already has 2 SQL queries", and so could a burst on
    /// a lane whose places were full.)
    ///
    /// A reservation given back earlier (the SQL wait's bound, which answers 503 itself) is not
    /// given back twice (``TenantReservation/release()`` is idempotent).
    func run<Outcome>(
        _ tenant: TenantID, holding reservation: TenantReservation, _ work: @escaping @Sendable () -> Outcome,
        then deliver: @escaping @Sendable (Outcome) -> Void
    ) {
        run(key: tenant) {
            let outcome = work()
            reservation.release()
            deliver(outcome)
        }
    }
}
