import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport

/// Where a request whose regular expressions are slow is matched: not on libmicrohttpd's
/// workers, which serve every tenant's mocks (docs/tenancy.md#fair-shares). So is a request
/// no mock matched whose 404 would first build the near-miss catalogs of more than
/// ``MockStore/nearMissCatalogWorkerLimit`` mocks (``MockServing/respond(to:tenant:within:refundable:)``).
///
/// A worker matches a request within ``workerSlice`` (``MockStore/serve(tenant:method:target:headerValue:body:within:)``).
/// When an expression is still running then, the request is parked (no worker held) and
/// matched again from the start, with its whole 100 ms evaluation budget, on this lane's
/// threads: each tenant has its own queue, at most one of its requests is matched at a time,
/// and tenants with requests waiting take turns (``HTTPWorkPool``'s round robin). A tenant
/// may have ``admittedPerTenant`` requests here (running or waiting); past that a request is
/// answered at once with ``APIError/slowMatchingBusy(_:)`` (journaled and counted), except a
/// miss waiting for a near-miss catalog, which gets its 404 on the worker
/// (``MockServing/notFoundBesideLane(missedAt:_:tenant:within:refundable:)``). So one
/// tenant's slow patterns cost its own requests time, and other tenants' requests at most
/// one slice of a worker each.
///
/// The **body lane** is a second lane of the same shape, with threads and places of its own
/// (``init(name:)``, ``CatbirdHandler/matchOnBodyLane(_:tenant:bytes:)``), for requests whose
/// body a body pattern must read when it is over the 64 KiB a worker reads (tester finding
/// try9b F10: on the one lane, 40-80 tenants with one slow-regexp request each made any
/// tenant's 100 KB upload wait 4-8.5 s). Its work is bounded by the body's size, not by ICU:
/// there, regular expressions keep a worker's slice (plus time for the body's passes) and a
/// request whose expressions outlast it goes on to the matching lane.
struct MatchingLane: Sendable {
    /// Regular-expression time a request may take on a worker: 1 ms. Checked by ICU about
    /// every 10,000 backtracking steps, so a worker is held a few milliseconds at most.
    static let workerSlice = RegexpSlice.length
    /// Threads: 2 (at most 1 per tenant, so one tenant's slow requests leave the other to the rest).
    static let threadCount = 2
    /// Requests of one tenant on this lane at once, running or waiting: 32. Each takes up to
    /// the 100 ms budget (and a 404's 50 ms near-miss search), one at a time, so the last one
    /// admitted still answers within about 3-5 s; a longer queue would only end in client
    /// timeouts.
    static let admittedPerTenant = 32

    /// Nice value of the lane's threads: 10, so their CPU-bound matching yields the cores to
    /// the workers (other tenants' requests) when both want them.
    static let niceness: Int32 = 10

    private let pool: HTTPWorkPool<TenantID>
    private let admission = TenantAdmission(limit: admittedPerTenant)

    /// Starts the lane's ``threadCount`` threads, named `name` and their index (`catbird-match-0`; the
    /// body lane's `catbird-body-0`).
    init(name: String = "catbird-match") {
        pool = HTTPWorkPool<TenantID>(threadCount: Self.threadCount, perKeyLimit: 1, name: name, niceness: Self.niceness)
    }

    /// The time a request whose body is `bytes` long is matched within on the body lane: a
    /// worker's slice plus 50 ns a byte (a JSON parse takes about 15 ns a byte, a linear ICU
    /// search a few: docs/matching.md#evaluation-budget), at most the request's 100 ms budget
    /// (``MockStore/requestBudget``), so an expression never gets more there than on the
    /// matching lane. 100 KB: 6 ms; 2 MB and more: 100 ms. The body's passes always run there;
    /// the expressions get what they leave.
    static func bodyLaneSlice(bytes: Int) -> Duration {
        min(workerSlice + .nanoseconds(bytes * 50), MockStore.requestBudget)
    }

    /// A place for one of `tenant`'s requests on this lane, or nil when it already has
    /// ``admittedPerTenant``.
    func admit(_ tenant: TenantID) -> TenantReservation? {
        admission.admit(tenant)
    }

    /// Queues `work` among `tenant`'s jobs (one at a time per tenant, tenants in turn), holding
    /// `reservation` (from ``admit(_:)``) until it returned: the lane gives the place back, then
    /// hands what `work` returned to `deliver`, which sends the answer
    /// (``HTTPWorkPool/run(_:holding:_:then:)``).
    func run<Outcome>(
        _ tenant: TenantID, holding reservation: TenantReservation, _ work: @escaping @Sendable () -> Outcome,
        then deliver: @escaping @Sendable (Outcome) -> Void
    ) {
        pool.run(tenant, holding: reservation, work, then: deliver)
    }

    /// Waits for the running jobs, then runs those not yet started on the calling thread
    /// (``HTTPWorkPool/stop(runningWaiting:)``): called after the server's HTTP stop answered
    /// their clients 503, each finds its client no longer waiting, matches nothing and journals
    /// that 503 (``CatbirdHandler/abandonedOnLane(_:tenant:_:lane:)``).
    func stop() {
        pool.stop(runningWaiting: true)
    }
}

extension MatchingLane {
    /// Why a request goes to the matching lane, which its 429 says when the lane is full
    /// (``APIError/slowMatchingBusy(_:)``).
    enum Cause {
        /// Its regular expressions ran past the worker's slice, or one of them was found slow before.
        case slowExpressions
        /// A body pattern must read its body of this many bytes, over the 64 KiB a worker reads.
        case largeBody(bytes: Int)
    }
}

extension APIError {
    /// 429: the tenant already has ``MatchingLane/admittedPerTenant`` requests on the matching
    /// lane (docs/tenancy.md#fair-shares); the reason says why this one was to go there (tester
    /// finding try8a F9: every refusal read as one about regular expressions, also for a
    /// tenant that had none). A 404 waiting for a near-miss catalog is never refused
    /// (``MockServing/notFoundBesideLane(missedAt:_:tenant:within:refundable:)``).
    static func slowMatchingBusy(_ cause: MatchingLane.Cause) -> APIError {
        let why = switch cause {
        case .slowExpressions:
            "its mocks' regular expressions take more than \(Int(MatchingLane.workerSlice.milliseconds)) ms (one ran past a "
                + "worker's slice, or was found slow before)"
        case let .largeBody(bytes):
            "its body of \(bytes) bytes is over the \(RequestBodyScope.workerPassBytes / 1024) KiB a worker reads for body "
                + "patterns (a mock whose method, url and headers match it has one)"
        }
        let advice = switch cause {
        case .slowExpressions: "make the mocks' regular expressions cheaper, or send fewer such requests at once"
        case .largeBody: "send fewer such requests at once"
        }
        return APIError(
            status: 429,
            reason: "this request was not matched: \(why), so it is matched on the matching lane, where this tenant already has "
                + "\(MatchingLane.admittedPerTenant) requests running or waiting (one at a time per tenant, each up to the 100 ms "
                + "evaluation budget; docs/tenancy.md#fair-shares); \(advice)")
    }

    /// 429: the tenant already has ``MatchingLane/admittedPerTenant`` requests on the body lane
    /// (docs/tenancy.md#large-bodies), for a body of `bytes` bytes.
    static func bodyLaneBusy(bytes: Int) -> APIError {
        APIError(
            status: 429,
            reason: "this request was not matched: its body of \(bytes) bytes is over the \(RequestBodyScope.workerPassBytes / 1024) "
                + "KiB a worker reads for body patterns (a mock whose method, url and headers match it has one), so it is matched on "
                + "the body lane, where this tenant already has \(MatchingLane.admittedPerTenant) requests running or waiting (one at "
                + "a time per tenant; docs/tenancy.md#large-bodies); send fewer such requests at once")
    }
}
