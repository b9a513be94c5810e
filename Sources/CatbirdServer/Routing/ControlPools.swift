import CatbirdDomain
import CatbirdHTTP

/// Where a control route's handler runs (docs/tenancy.md#fair-shares).
enum ControlLane: Sendable {
    /// On the libmicrohttpd worker, at once: the handler only reads memory (a mock listing, the
    /// OpenAPI document, the web page) or decides itself when to answer.
    case worker
    /// On ``ControlPools/quick``: short work that may wait for the database (a mock update,
    /// which commits to SQLite; a journal page or entry, read after the journal's flush).
    case quick
    /// On ``ControlPools/bulk``: a quick route's call whose request body is over
    /// ``ControlPools/bulkBodySize`` (a mock update with a large fixture, which decodes and stores
    /// megabytes for up to seconds), so that it never holds a quick thread (try8b F8).
    case bulk
    /// On ``ControlPools/slow``, admitted per tenant: reads whose length grows with a tenant's
    /// journal or its pattern (counts, finds, filtered and unmatched listings, waits' looks,
    /// tenant lists, HAR exports).
    case slow
    /// On ``ControlPools/drop``, admitted per tenant as ``slow`` calls: journal clears and
    /// tenant drops, which take the write connection.
    case drop
    /// On ``ControlPools/health``, a thread of its own: the readiness probe never waits behind
    /// any tenant's work.
    case health
    /// On ``ControlPools/metrics``, a thread of its own: a scrape shows no tenant's data, so it
    /// takes no tenant's turn (a scraper sends no parallel id: in the default tenant's quick
    /// turn, header-less clients' updates held scrapes for p50 770 ms, try9b F11), and it never
    /// delays the readiness probe.
    case metrics
}

/// The control routes' threads, in lanes each shared fairly between tenants: a tenant's
/// jobs take turns with other tenants' (``HTTPWorkPool``: the tenant whose last job started longest ago first), and a tenant holds at
/// most its share of a lane's threads at once. So a quick action (a mock update) never waits
/// behind slow work (another tenant's counts), and one tenant's slow work only ever delays its
/// own (docs/tenancy.md#fair-shares). User SQL has a third pool of its own (``TenantSQL``).
struct ControlPools: Sendable {
    /// Quick lane threads: 2, at most 1 per tenant (a tenant's burst of updates or listings
    /// leaves the other thread to the rest).
    static let quickThreadCount = 2
    static let quickPerTenant = 1
    /// Slow lane threads: 4, at most 2 per tenant running at once, so one tenant's slow calls
    /// leave two threads for the others.
    static let slowThreadCount = 4
    static let slowPerTenant = 2
    /// Slow calls one tenant may have running or waiting: 4 (2 running, 2 queued behind them).
    /// A fifth is refused at once with 429 (``APIError/slowCallsBusy(limit:running:)``): a
    /// queued call starts within one slow call's time limit (2 s), so it still answers within
    /// a client's usual 5-s timeout, and a burst is refused instead of queued without end.
    static let slowAdmittedPerTenant = 4
    /// A quick call whose request body holds more bytes than this runs on the bulk lane:
    /// 1 MiB (a 1-MiB mock update is answered in tens of milliseconds; try8b F8's 30-MB ones
    /// held a quick thread for 2-6 s each, and two of them held both).
    static let bulkBodySize = 1 << 20
    /// Bulk lane threads: 2, at most 1 per tenant, so two tenants' large updates leave the
    /// quick lane to everyone else's small calls, and a third tenant's large update waits for
    /// at most one running.
    static let bulkThreadCount = 2
    static let bulkPerTenant = 1

    /// Drop lane threads: 2, at most 1 per tenant.
    static let dropThreadCount = 2
    static let dropPerTenant = 1
    /// The slow lane's nice value: 10, as the matching lanes' (``MatchingLane/niceness``). Its
    /// reads are the CPU-heavy control work, and at nice 0 they took an equal share of the two
    /// cores from the workers that serve every tenant's mocks (tester finding tester31b-F2: one
    /// tenant's counts, finds and listings, within its admission, took another tenant's mock
    /// hits from p99 0.40 ms to 9.4 ms). Journal clears and tenant drops are not on it: they
    /// take the write connection, and a thread at nice 10 holding it while the workers have the
    /// cores would keep the journal writer and every mock update waiting.
    static let slowNiceness: Int32 = 10

    let quick = HTTPWorkPool<TenantID>(threadCount: quickThreadCount, perKeyLimit: quickPerTenant, name: "catbird-quick")
    let slow = HTTPWorkPool<TenantID>(
        threadCount: slowThreadCount, perKeyLimit: slowPerTenant, name: "catbird-slow", niceness: slowNiceness)
    let drop = HTTPWorkPool<TenantID>(threadCount: dropThreadCount, perKeyLimit: dropPerTenant, name: "catbird-drop")
    let bulk = HTTPWorkPool<TenantID>(threadCount: bulkThreadCount, perKeyLimit: bulkPerTenant, name: "catbird-bulk")
    let slowAdmission = TenantAdmission(limit: slowAdmittedPerTenant)
    /// Health's own thread (its read may wait for a read connection, which a worker must not).
    static let healthThreadCount = 1
    let health = HTTPWorkPool<TenantID>(threadCount: healthThreadCount, name: "catbird-health")
    /// Metrics' own thread (its stored counts wait for a read connection).
    static let metricsThreadCount = 1
    let metrics = HTTPWorkPool<TenantID>(threadCount: metricsThreadCount, name: "catbird-metrics")
    /// Parked calls' looks (waits, long polls of filtered listings), one at a time per tenant.
    let looks = SerialLooks()
    /// The quick and bulk lanes' calls at work when the server starts to stop: its answer and
    /// what was done agree (tester24a-F1).
    let atStop = ControlWorkAtStop()

    /// `lane`'s pool, running `tenant`'s jobs in its turn (nil for ``ControlLane/worker``).
    func lane(_ lane: ControlLane, for tenant: TenantID) -> TenantLane? {
        switch lane {
        case .worker: nil
        case .quick: TenantLane(pool: quick, tenant: tenant)
        case .slow: TenantLane(pool: slow, tenant: tenant)
        case .drop: TenantLane(pool: drop, tenant: tenant)
        case .bulk: TenantLane(pool: bulk, tenant: tenant)
        case .health: TenantLane(pool: health, tenant: tenant)
        case .metrics: TenantLane(pool: metrics, tenant: tenant)
        }
    }

    /// A slow call's place among its tenant's admitted ones.
    /// - Throws: 429 when the tenant already has ``slowAdmittedPerTenant`` slow calls running
    ///   or waiting.
    func admitSlow(_ tenant: TenantID) throws(APIError) -> TenantReservation {
        guard let reservation = slowAdmission.admit(tenant) else {
            throw .slowCallsBusy(limit: Self.slowAdmittedPerTenant, running: Self.slowPerTenant)
        }
        return reservation
    }

    /// Drops the jobs not yet started and waits for the running ones (``HTTPWorkPool/stop()``).
    func stop() {
        quick.stop()
        slow.stop()
        drop.stop()
        bulk.stop()
        health.stop()
        metrics.stop()
    }
}

/// One tenant's turn in one lane's pool.
struct TenantLane: Sendable {
    let pool: HTTPWorkPool<TenantID>
    let tenant: TenantID

    /// Queues `job` among the tenant's jobs on the pool.
    func run(_ job: @escaping @Sendable () -> Void) {
        pool.run(key: tenant, job)
    }

    /// Answers later with what `work` returns, run among the tenant's jobs on the pool.
    func answer(_ work: @escaping @Sendable () -> HTTPResponse) -> HTTPAnswer {
        .later(on: pool, key: tenant, work)
    }
}

extension APIError {
    /// 429: the tenant already has `limit` slow control calls running or waiting.
    static func slowCallsBusy(limit: Int, running: Int) -> APIError {
        APIError(
            status: 429,
            reason: "this tenant already has \(limit) slow control calls (counts, finds, journal clears and exports, "
                + "tenant lists and drops) running or waiting: at most \(limit) per tenant, \(running) running at once "
                + "(docs/tenancy.md#fair-shares); retry when one has answered")
    }
}
