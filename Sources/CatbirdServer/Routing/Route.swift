import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Foundation

/// What a route handler gets: the request and the tenant it is scoped to.
struct RouteContext: Sendable {
    let request: HTTPRequest
    /// From `X-Catbird-Parallel-Id`; the default tenant when absent or empty.
    let tenant: TenantID
    /// Whether the request may use the cross-tenant routes (``AdminAccess``).
    let isAdmin: Bool
    /// The path segments after a parameter route's prefix, each percent-decoded on its own
    /// (e.g. a tenant id; an entry id, `response`, `body`); empty for an exact path.
    var segments: [String] = []
    /// The query's parameters in order, decoded once by the route table and checked against
    /// the route's names (``Route/queryPairs(_:)``); empty for a route that reads no query.
    var query: [(name: String, value: String)] = []
    /// The control pools, for a route that answers later (``Route/init(_:_:maxSegments:query:answer:)``).
    let pools: ControlPools

    /// `lane`'s pool, running this tenant's jobs in its turn (nil for ``ControlLane/worker``).
    func lane(_ lane: ControlLane) -> TenantLane? {
        pools.lane(lane, for: tenant)
    }

    /// The quick lane for this tenant (an unfiltered journal listing's looks).
    var quickLooks: LookLane { LookLane(lane: TenantLane(pool: pools.quick, tenant: tenant), serial: nil) }

    /// The slow lane for this tenant, one look at a time (a wait's looks, which may match a slow
    /// pattern; a filtered listing's, which may read the whole journal): ``SerialLooks``.
    var slowLooks: LookLane { LookLane(lane: TenantLane(pool: pools.slow, tenant: tenant), serial: pools.looks) }
}

/// A control or admin endpoint under `/catbird`.
struct Route: Sendable {
    let method: String
    /// The exact path, or a prefix ending in `/` when ``maxSegments`` is set.
    let path: String
    /// For a parameter route, the most path segments it takes after ``path`` (a `/` inside
    /// one is written `%2F`); more are refused with 400 by the route table, so that
    /// `DELETE /catbird/api/tenants/a%2Fb/extra` is never read as the id `a/b/extra`. nil: an
    /// exact path.
    let maxSegments: Int?
    var hasParameter: Bool { maxSegments != nil }
    /// Whether a parameter route also matches its prefix followed by nothing (the handler then
    /// gets one empty segment and refuses it itself, e.g. `DELETE /catbird/api/tenants/` with an
    /// unset id variable: a 400, not a 404 that reads like "no such tenant").
    let matchesEmptyParameter: Bool
    /// The query parameter names the route understands; any other name is refused with 400
    /// before the handler runs (a route never does more, or other, than it was asked:
    /// docs/protocol.md#query-parameters). nil: the route reads any query (the web page).
    let queryNames: [String]?
    /// Query parameter names the route refuses with a reason of its own (the HAR export's
    /// `wait`: a name another route takes), checked before ``queryNames``; not listed among the
    /// known ones. Set with ``refusing(_:because:)``.
    private(set) var refusedQueryNames: [String: String] = [:]
    /// What the 400 for an unknown query parameter says the route takes, in place of the list
    /// of ``queryNames`` (`known: a, b`); set with ``knownQuery(_:)`` by a route whose paths take
    /// different ones.
    private(set) var knownQueryText: String?
    /// A parameter route's full paths, as segments (``serving(_:)``).
    var templates: [[String]] = []
    /// Where the handler runs, chosen for each request (most routes name one lane; the journal
    /// listing's depends on its query): a handler that may wait (journal queries and deletes,
    /// writes that wait for the database writer, flush waits) runs on a control pool while the
    /// connection is parked, never on the workers that serve mocks (docs/answering-later.md);
    /// slow work is admitted per tenant by the route table (docs/tenancy.md#fair-shares). An
    /// error it throws is answered like the handler's.
    let lane: @Sendable (RouteContext) throws -> ControlLane
    /// Answers the request; any error it throws is answered by ``ErrorAnswer`` (the one place
    /// errors become HTTP).
    let handler: @Sendable (RouteContext) throws -> HTTPResponse
    /// Set for a route that decides itself when to answer (a long poll): used instead of
    /// `handler` for a request whose lane is ``ControlLane/worker``.
    let answer: (@Sendable (RouteContext) throws -> HTTPAnswer)?
    /// Set for a route that acts on every tenant at once (`DELETE /catbird/api/tenants`,
    /// `DELETE /catbird/api/mocks`; docs/tenancy.md#admin): the route table refuses a caller that
    /// is not the admin (401 or 403, ``AdminAccess/refusal(_:tenant:request:)``), then a request without
    /// the opt-in `all=true` (400, ``EveryTenantOptIn``), before the handler runs or a slow call
    /// is admitted. The route takes the query parameter `all`.
    let everyTenant: EveryTenantAction?

    /// - Parameter everyTenant: for a route acting on every tenant, what its refusals name
    ///   (``everyTenant``); the route then also takes the query parameter `all`.
    init(_ method: String, _ path: String, maxSegments: Int? = nil, matchesEmptyParameter: Bool = false, query: [String]? = [],
         lane: ControlLane = .worker, everyTenant: EveryTenantAction? = nil,
         _ handler: @escaping @Sendable (RouteContext) throws -> HTTPResponse) {
        self.method = method
        self.path = path
        self.maxSegments = maxSegments
        self.matchesEmptyParameter = matchesEmptyParameter
        self.queryNames = everyTenant == nil ? query : (query ?? []) + [EveryTenantOptIn.name]
        self.lane = lane == .quick ? Self.quickOrBulk : { _ in lane }
        self.handler = handler
        self.answer = nil
        self.everyTenant = everyTenant
    }

    /// A route that answers now or later as it decides (runs on the worker: must not block).
    init(_ method: String, _ path: String, maxSegments: Int? = nil, query: [String]? = [],
         answer: @escaping @Sendable (RouteContext) throws -> HTTPAnswer) {
        self.init(method, path, query: query, lane: { _ in .worker }, answer: answer) { _ in throw APIError.notFound }
    }

    /// A route whose lane `lane` chooses for each request: on ``ControlLane/worker`` `answer`
    /// answers now or later as it decides (it must not block); on another lane `handler` runs
    /// there, admitted as that lane's work is.
    init(_ method: String, _ path: String, maxSegments: Int? = nil, query: [String]? = [],
         lane: @escaping @Sendable (RouteContext) throws -> ControlLane,
         answer: @escaping @Sendable (RouteContext) throws -> HTTPAnswer,
         _ handler: @escaping @Sendable (RouteContext) throws -> HTTPResponse) {
        self.method = method
        self.path = path
        self.maxSegments = maxSegments
        self.matchesEmptyParameter = false
        self.queryNames = query
        self.lane = lane
        self.handler = handler
        self.answer = answer
        self.everyTenant = nil
    }

    /// A quick route's lane for one request: ``ControlLane/bulk`` for a body over
    /// ``ControlPools/bulkBodySize`` bytes, else ``ControlLane/quick`` (docs/tenancy.md#fair-shares).
    private static let quickOrBulk: @Sendable (RouteContext) -> ControlLane = { context in
        context.request.body.count > ControlPools.bulkBodySize ? .bulk : .quick
    }

    /// The parameter as sent (still percent-encoded) when `path` matches this route, `""` for
    /// an exact match, or nil when it does not match.
    func match(_ requestPath: Substring) -> Substring? {
        if !hasParameter { return requestPath == path ? "" : nil }
        guard requestPath.hasPrefix(path), requestPath.count > path.count || matchesEmptyParameter else { return nil }
        return requestPath.dropFirst(path.count)
    }

    /// The parameter `raw` (the path after ``path``, as sent) split at `/` into its segments,
    /// each then percent-decoded; `[]` for an exact path.
    /// - Throws: 400 when there are more segments than ``maxSegments``, or one is not valid
    ///   percent-encoding of UTF-8 (`%ZZ`, `%FF`): read as literal text instead, it would name
    ///   another tenant than the one meant.
    func segments(of raw: Substring) throws(APIError) -> [String] {
        guard let maxSegments else { return [] }
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= maxSegments else {
            let most = maxSegments == 1 ? "one path segment" : "at most \(maxSegments) path segments"
            throw .badRequest(
                "\(method) \(path)… takes \(most); \(JSONText.shortString(String(raw))) has \(parts.count) (write a '/' inside one as %2F)")
        }
        var segments: [String] = []
        for part in parts {
            guard let decoded = PercentDecoding.text(part, stray: .refused) else {
                throw .badRequest(
                    "the path segment \(JSONText.string(part.utf8Prefix(100))) is not valid percent-encoded UTF-8 "
                        + "(a '%' must be followed by two hex digits, and the bytes must be UTF-8)")
            }
            segments.append(decoded)
        }
        return segments
    }

    /// For a route acting on every tenant (``everyTenant``): refuses a caller that is not the
    /// admin, then a request without the opt-in; nothing for other routes.
    /// - Throws: 401 or 403 (``AdminAccess/refusal(_:tenant:request:)``), then 400
    ///   (``EveryTenantOptIn/require(in:route:action:)``).
    func checkEveryTenant(
        _ query: [(name: String, value: String)], isAdmin: Bool, tenant: TenantID, admin: AdminAccess, request: HTTPRequest? = nil
    ) throws(APIError) {
        guard let everyTenant else { return }
        guard isAdmin else { throw admin.refusal(everyTenant.refusal, tenant: tenant, request: request) }
        try EveryTenantOptIn.require(in: query, route: "\(method) \(path)", action: everyTenant.action)
    }

    /// Whether the route reads a request body: its `POST` routes do; a `GET` (also answering
    /// `HEAD`) or `DELETE` route reads none.
    var readsBody: Bool { method != "GET" && method != "DELETE" }

    /// Refuses a body sent to a route that reads none, so that nothing is done on a request
    /// whose body meant something to its sender: `DELETE /catbird/api/requests` with a
    /// MockServer-style filter in the body would otherwise delete every entry of the tenant
    /// (docs/protocol.md#request-bodies; the query's rule, ``queryPairs(_:)``, for the body).
    /// - Throws: 400 naming the route and the body's size in bytes.
    func checkBody(of request: HTTPRequest) throws(APIError) {
        let size = request.body.count + request.discardedBodySize
        guard size > 0 else { return }
        try checkBody(request.method, sent: "\(size) bytes were sent")
    }

    /// ``checkBody(of:)``'s refusal for a body `sent` (what was sent or announced, e.g. "12
    /// bytes were sent") with a request for `method`, unless the route reads bodies.
    func checkBody(_ method: String, sent: String) throws(APIError) {
        guard !readsBody else { return }
        throw .badRequest(
            "\(method) \(path)\(hasParameter ? "…" : "") takes no request body, but \(sent): nothing was done "
                + "(a filter or options in the body are not read here; see GET /catbird/api/openapi.json)")
    }

    /// The query's parameters for the handler (``RouteContext/query``), each part decoded
    /// once; refuses a parameter the route does not understand, one given twice, and one that
    /// is not valid percent-encoded UTF-8 (``QueryParameters/wellFormedPairs(_:)``). Empty for
    /// a route that reads no query (``queryNames`` nil: the web page reads its own).
    /// - Throws: 400 naming the parameter (and the known ones).
    func queryPairs(_ query: Substring?) throws(APIError) -> [(name: String, value: String)] {
        guard let queryNames, let query, !query.isEmpty else { return [] }
        let pairs = try QueryParameters.wellFormedPairs(query)
        for (name, _) in pairs where !queryNames.contains(name) {
            if let reason = refusedQueryNames[name] { throw .badRequest(reason) }
            let known = knownQueryText ?? (queryNames.isEmpty ? "this route takes none" : "known: \(queryNames.joined(separator: ", "))")
            throw QueryParameters.unknown(name, known: known)
        }
        return pairs
    }

    /// This route, its unknown-parameter 400 saying `text` of the parameters it takes (tester
    /// finding tester28a-F2: the journal entry route's listed `bodies, limit` for a body download,
    /// which then refused `bodies`).
    func knownQuery(_ text: String) -> Route {
        var route = self
        route.knownQueryText = text
        return route
    }

    /// This route, refusing the query parameter `name` with 400 and `reason` (not listed as a
    /// known one: tester finding T18B note, the HAR export's unknown-parameter 400 listed `wait`,
    /// which it refuses).
    func refusing(_ name: String, because reason: String) -> Route {
        var route = self
        route.refusedQueryNames[name] = reason
        return route
    }
}

/// The `/catbird` route table: finds the route, answers 405 with an `Allow` header for a known
/// path with another method, 404 otherwise. `HEAD` is answered by the `GET` route of the path
/// (the HTTP layer sends the headers only). A route's handler runs in its lane of `pools`.
struct RouteTable: Sendable {
    let routes: [Route]
    /// Where failures that are not the request's fault are logged.
    let log: Logger
    /// The control pools quick and slow routes run on.
    let pools: ControlPools
    /// Who is the admin, for the refusals of the routes that act on every tenant (``Route/everyTenant``).
    let admin: AdminAccess
    /// Where a large answer's bytes are counted until its client has read it (``ControlAnswerBytes``).
    let answerBudget: ByteBudget

    /// The answer of the route `request` asks for, its body counted in ``answerBudget`` when
    /// large (``ControlAnswerBytes``), whichever thread makes it.
    func respond(to request: HTTPRequest, tenant: TenantID, isAdmin: Bool) -> HTTPAnswer {
        let budget = answerBudget
        return answer(to: request, tenant: tenant, isAdmin: isAdmin).map { ControlAnswerBytes.counted($0, in: budget, for: tenant) }
    }

    private func answer(to request: HTTPRequest, tenant: TenantID, isAdmin: Bool) -> HTTPAnswer {
        let route: Route
        let context: RouteContext
        do throws(APIError) {
            let parameter: Substring
            (route, parameter) = try self.route(for: request)
            try route.checkBody(of: request)
            context = try self.context(of: request, route, parameter, tenant: tenant, isAdmin: isAdmin)
        } catch {
            return .now(error.response)
        }
        do {
            let chosen: ControlLane
            do { chosen = try route.lane(context) } catch { return .now(ErrorAnswer.response(for: error, log: log)) }
            if chosen == .worker, let answer = route.answer {
                do { return try answer(context) } catch { return .now(ErrorAnswer.response(for: error, log: log)) }
            }
            guard let lane = context.lane(chosen) else { return .now(run(route, context)) }
            let reservation: TenantReservation?
            do { reservation = chosen == .slow || chosen == .drop ? try pools.admitSlow(tenant) : nil } catch { return .now(error.response) }
            let work: @Sendable () -> HTTPResponse = {
                var response = run(route, context)
                guard let reservation else { return response }
                // A streamed answer (a HAR export) is read and encoded while the client
                // downloads: slow work, counted against the tenant's slow calls until its last
                // part was sent, it failed, or the client went away (try6b finding 9: admission
                // that ended with the first page let one tenant stream 9 full exports at once
                // and starve every tenant's mock serving). A stream dropped unfinished drops the
                // reservation with it, which gives itself back (``TenantReservation``).
                guard case let .stream(length, body) = response.content else {
                    reservation.release()
                    return response
                }
                response.content = .stream(length: length, body.whenEnded { reservation.release() })
                return response
            }
            // The lanes of changes: a call under way when the stop begins gets the answer of
            // what it did (``ControlWorkAtStop``).
            guard chosen == .quick || chosen == .bulk else { return lane.answer(work) }
            return lane.answer(within: pools.atStop, refusal: HTTPResponse.serverStopping, work)
        }
    }

    /// The route that answers `request`, with its parameter (``Route/match(_:)``) as sent but for
    /// escapes of unreserved characters, decoded in the whole path first.
    /// - Throws: 404 with the route probably meant when no route has its path, 405 with
    ///   `Allow` when none of those takes its method.
    func route(for request: HTTPRequest) throws(APIError) -> (Route, Substring) {
        // RFC 3986 §6.2.2's normal form: `%72equests` is `requests` in every segment, as it was
        // only in a parameter route's segments (tester finding tester65b-F2:
        // `/catbird/api/%72equests` was a 404, `…/requests/1/%72equest/body` a 200).
        let path = request.path.utf8.contains(UInt8(ascii: "%"))
            ? Substring(String(decoding: PercentDecoding.normalizedEscapes(request.path), as: UTF8.self)) : request.path
        var allowed: [String] = []
        // An exact path wins over a parameter route's prefix: `GET /catbird/api/requests/count`
        // is a 405 of the count route, not entry "count".
        let exactPathExists = routes.contains { !$0.hasParameter && $0.path == path }
        for route in routes where !(exactPathExists && route.hasParameter) {
            guard let parameter = route.match(path) else { continue }
            guard Self.answers(route.method, request.method) else {
                // A parameter route offers its methods only for a path of its shape (``Route/fits(_:)``).
                guard route.fits(path) else { continue }
                for method in Self.methodsServed(by: route.method) where !allowed.contains(method) { allowed.append(method) }
                continue
            }
            // Of its method but not of its shape, and near a route that serves it (`GET
            // /catbird/api/requests/98/Response/body`, `DELETE /catbird/api/mocks/5/`): the 404
            // naming that route, not the handler's 400 "not a journal id" (tester finding
            // tester30a-F2). A path of its shape but for an id (`DELETE /catbird/api/mocks/x`,
            // `DELETE /catbird/api/tenants/` with an unset id variable) is the handler's: its
            // 400 says what an id is (T12-F6), where the route near it would act on every tenant.
            if !route.fitsButForPlaceholders(path), let meant = suggestion(method: request.method, path: path) {
                throw .noControlRoute(request.method, request.path, meant: meant)
            }
            return (route, parameter)
        }
        guard !allowed.isEmpty else {
            throw .noControlRoute(request.method, request.path, meant: suggestion(method: request.method, path: path))
        }
        throw .methodNotAllowed(allowed.joined(separator: ", "))
    }

    /// What `route`'s handler gets for `request`, its query and path checked.
    /// - Throws: 400 for a query parameter the route does not take (``Route/queryPairs(_:)``)
    ///   or a bad path segment (``Route/segments(of:)``); the refusals of a route acting on
    ///   every tenant (``Route/checkEveryTenant(_:isAdmin:tenant:admin:request:)``).
    func context(
        of request: HTTPRequest, _ route: Route, _ parameter: Substring, tenant: TenantID, isAdmin: Bool
    ) throws(APIError) -> RouteContext {
        let query = try route.queryPairs(request.query)
        let segments = try route.segments(of: parameter)
        try route.checkEveryTenant(query, isAdmin: isAdmin, tenant: tenant, admin: admin, request: request)
        return RouteContext(request: request, tenant: tenant, isAdmin: isAdmin, segments: segments, query: query, pools: pools)
    }

    private func run(_ route: Route, _ context: RouteContext) -> HTTPResponse {
        do {
            return try route.handler(context)
        } catch {
            return ErrorAnswer.response(for: error, log: log)
        }
    }

    /// Whether a route for `routeMethod` answers `requestMethod`: the same method, or `HEAD`
    /// for a `GET` route (RFC 9110 §9.3.2).
    private static func answers(_ routeMethod: String, _ requestMethod: String) -> Bool {
        routeMethod == requestMethod || (routeMethod == "GET" && requestMethod == "HEAD")
    }

    /// The methods a route for `method` answers, as listed in `Allow`.
    private static func methodsServed(by method: String) -> [String] {
        method == "GET" ? ["GET", "HEAD"] : [method]
    }
}
