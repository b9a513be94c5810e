import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import CatbirdWire

/// The server's ``HTTPHandler``: `/catbird` control and admin routes, everything else is
/// served from mocks and journaled. Logs one line per request at info level.
struct CatbirdHandler: HTTPHandler {
    let routes: RouteTable
    let serving: MockServing
    let log: Logger
    let metrics: RequestMetrics
    let admin: AdminAccess

    init(dependencies: RouteDependencies) {
        routes = RouteTable(routes:
            MockRoutes.routes(dependencies) + JournalRoutes.routes(dependencies) + JournalEntryRoutes.routes(dependencies)
            + TenantRoutes.routes(dependencies) + SQLRoute.routes(dependencies) + InfoRoutes.routes(dependencies)
            + WebPageRoutes.routes() + MetricsRoute.routes(dependencies), log: dependencies.log)
        serving = MockServing(mocks: dependencies.mocks, journal: dependencies.journal, files: dependencies.files, admin: dependencies.admin)
        admin = dependencies.admin
        log = dependencies.log
        metrics = dependencies.metrics.requests
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let tenant = Self.tenant(of: request)
        let response: HTTPResponse
        let answeredBy: String
        if Self.isControl(request.path) {
            response = routes.respond(to: request, tenant: tenant, isAdmin: admin.isAdmin(request, tenant: tenant))
            answeredBy = "control"
        } else {
            let served = serving.respond(to: request, tenant: tenant)
            response = served.0
            answeredBy = served.1.rawValue
        }
        let elapsed = ContinuousClock.now - request.receivedAt
        metrics.record(answeredBy: answeredBy, status: response.status, latency: elapsed)
        if log.isEnabled(.info) {
            let delay = response.delay.map { " +\($0.components.seconds)s delay" } ?? ""
            log.info("\(request.method) \(request.target) → \(response.status) \(answeredBy) tenant=\(tenant) \(Self.format(elapsed.milliseconds))ms\(delay)")
        }
        return response
    }

    /// 413. A request outside `/catbird` is journaled like any other, with an empty request
    /// body: the upload was discarded (and a chunked one's size is unknown).
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        let response = APIError.payloadTooLarge(limit: limit).response
        let tenant = Self.tenant(of: request)
        if !Self.isControl(request.path) {
            serving.journal(
                request: request, response: response, responseHeadersJSON: APIError.headersJSON,
                answeredBy: .unanswered, hit: nil, tenant: tenant)
        }
        metrics.record(
            answeredBy: Self.isControl(request.path) ? "control" : CatbirdRequest.AnsweredBy.unanswered.rawValue, status: response.status,
            latency: ContinuousClock.now - request.receivedAt)
        log.warning("\(request.method) \(request.target) → 413: body over \(limit) bytes tenant=\(tenant)")
        return response
    }

    /// `/catbird` and everything under `/catbird/` (never served from mocks nor forwarded).
    static func isControl(_ path: Substring) -> Bool {
        path == "/catbird" || path.hasPrefix("/catbird/")
    }

    static func tenant(of request: HTTPRequest) -> TenantID {
        TenantID(request.headers.first(TenantID.headerName) ?? "")
    }

    private static func format(_ milliseconds: Double) -> String {
        let tenths = Int((milliseconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
