import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Dispatch
import Foundation

/// The server's ``HTTPHandler``: `/catbird` control and admin routes; everything else is
/// answered by mocks, files or the upstream (``MockServing``, ``UpstreamServing``; a forwarded
/// request is answered later, holding no worker) and journaled; `--cors` preflights first.
/// Logs one line per request at info level.
struct CatbirdHandler: HTTPHandler {
    let routes: RouteTable
    let serving: MockServing
    let upstream: UpstreamServing?
    /// `--cors`, `--cors-origin`: preflights answered, CORS headers added, other origins kept off
    /// the control routes (``CORS``); nil when off.
    let cors: CORS?
    /// The `Host` names the control routes answer under (DNS rebinding; ``ControlHosts``).
    let controlHosts: ControlHosts
    let log: Logger
    let metrics: RequestMetrics
    let admin: AdminAccess
    let journal: Journal
    /// Strict: an answer that is journaled leaves once its entry is committed (``release(_:journaled:_:answeredBy:tenant:)``).
    let durability: Durability
    /// Where requests whose regular expressions outlast the worker's slice are matched.
    let matchingLane: MatchingLane
    /// Where requests whose body over 64 KiB a body pattern must read are matched (``matchOnBodyLane(_:tenant:bytes:)``).
    let bodyLane: MatchingLane
    /// Tenants' requests answered later, which keep `--tenant-ttl` from dropping their tenant
    /// (``holdingTenant(_:_:)``).
    let activity: TenantActivity
    /// `--max-body-size`: also the most a request body may decode to (``decodingBody(_:tenant:)``).
    let maxBodySize: Int
    /// Each tenant's places for parked requests, which a forwarded request takes (``ParkedRequests``).
    let parked: ParkedRequests

    /// - Parameter controlPools: where quick and slow control routes run (``Route/lane``).
    /// - Parameter matchingLane: where requests with slow regular expressions are matched.
    /// - Parameter bodyLane: where requests with bodies over 64 KiB for body patterns are matched.
    init(dependencies: RouteDependencies, controlPools: ControlPools, matchingLane: MatchingLane, bodyLane: MatchingLane) {
        routes = RouteTable(
            routes: Self.controlRoutes(dependencies), log: dependencies.log, pools: controlPools, admin: dependencies.admin,
            answerBudget: dependencies.bodyBudget)
        serving = MockServing(
            mocks: dependencies.mocks, journal: dependencies.journal, files: dependencies.files, admin: dependencies.admin,
            forwarding: dependencies.upstream?.forwarding, log: dependencies.log, metrics: dependencies.metrics,
            cors: dependencies.settings.corsPolicy, strict: dependencies.settings.durability == .strict,
            sentAnswers: dependencies.sentAnswers, parked: dependencies.parkedRequests)
        parked = dependencies.parkedRequests
        upstream = dependencies.upstream
        cors = dependencies.settings.corsPolicy
        controlHosts = dependencies.settings.controlHosts
        admin = dependencies.admin
        log = dependencies.log
        metrics = dependencies.metrics.requests
        journal = dependencies.journal
        durability = dependencies.settings.durability
        self.matchingLane = matchingLane
        self.bodyLane = bodyLane
        activity = dependencies.tenants.activity
        maxBodySize = dependencies.settings.maxBodySize
    }

    /// Every `/catbird` route; each is described in the OpenAPI document (``OpenAPIRoute``),
    /// which a test checks against this list.
    static func controlRoutes(_ dependencies: RouteDependencies) -> [Route] {
        MockRoutes.routes(dependencies) + JournalRoutes.routes(dependencies) + HARRoute.routes(dependencies) + JournalEntryRoutes.routes(dependencies)
            + WaitRoute.routes(dependencies) + TenantRoutes.routes(dependencies) + SQLRoute.routes(dependencies)
            + InfoRoutes.routes(dependencies) + WebPageRoutes.routes() + MetricsRoute.routes(dependencies) + OpenAPIRoute.routes()
    }

    func respond(to request: HTTPRequest) -> HTTPAnswer {
        let tenant = Self.tenant(of: request)
        guard tenant.isWithinMaxLength else {
            let control = Self.isControlTarget(request.target)
            return refusedParallelID(
                request, "the \(TenantID.headerName) header is longer than \(TenantID.maxLength) bytes (docs/tenancy.md#tenant-of-a-request)",
                origin: cors?.allowedOrigin(of: request, control: control), control: control)
        }
        if let control = Self.controlRequest(request) {
            // Worked out once for the refusal, the preflight and the answer's fields.
            let origin = cors?.allowedOrigin(of: control, control: true)
            if let refusal = controlRefusal(request, as: control, tenant: tenant, origin: origin) { return refusal }
            let isAdmin = admin.isAdmin(control, tenant: tenant)
            let answer = holdingTenant(routes.respond(to: control, tenant: tenant, isAdmin: isAdmin), tenant, control: true)
            return recordedControl(answer, control, origin: origin, tenant: tenant)
        }
        if let cors, let preflight = cors.preflight(request, origin: cors.allowedOrigin(of: request, control: false)) {
            var (response, entry) = serving.entry(
                request: request, response: preflight, responseHeadersJSON: nil, answeredBy: .unanswered, hit: nil, tenant: tenant)
            if tenant.isDefault, CORS.asksForParallelId(request), let (url, left) = Self.withoutCredentials(entry.url) {
                // A browser shard's preflight: its tenant unknown, its query (a token) is not
                // left in the journal every client reads (tester finding tester66b-F2).
                entry.url = url
                entry.problem = Self.preflightLeftOutProblem(left)
            }
            let (sent, ticket) = serving.append(entry, of: response, settling: nil)
            return release(sent, journaled: ticket, request, answeredBy: "cors-preflight", tenant: tenant)
        }
        // Copied only to decode a body (a copy retains each of the request's strings and arrays).
        guard !request.body.isEmpty else { return serve(request, tenant: tenant) }
        var decoded = request
        decodeBody(&decoded)
        return serve(decoded, tenant: tenant)
    }

    /// ``respond(to:)`` for a request to serve (not a control call nor a CORS preflight), its
    /// body decoded: matched on this worker, or on a lane when it needs one.
    private func serve(_ request: HTTPRequest, tenant: TenantID) -> HTTPAnswer {
        // Settled once its entry is committed (strict) or queued (relaxed; given back when it is
        // held for its tenant's share of the journal queue and the client leaves meanwhile, which
        // only an entry of JournalWriter.largeEntryBytes or more can be).
        let (refundable, fromBody) = durability == .strict ? (true, Int.max) : Self.refundability(request)
        let served = RequestBodyScope.reading(request.matchedBody) {
            serving.respond(
                to: request, tenant: tenant, within: MatchingLane.workerSlice, refundable: refundable, refundableFromBody: fromBody)
        }
        // Consumed, as `answer` consumes what it is given: its journal entry is moved on into
        // the journal's queue, not copied (each copy retains every string and array it holds).
        switch consume served {
        case let .served(served): return holdingTenant(answer(served, request, tenant: tenant), tenant)
        // A body pattern must read its body over 64 KiB: the body lane (try9b F10).
        case let .unfinished(.largeBody(bytes)): return holdingTenant(matchOnBodyLane(request, tenant: tenant, bytes: bytes), tenant)
        // Its regular expressions (or body passes) need more than the worker's slice.
        case let .unfinished(cause): return holdingTenant(matchOnMatchingLane(request, tenant: tenant, cause: cause), tenant)
        // Its 404 first builds a large near-miss catalog.
        case let .notFoundOnLane(generation):
            return holdingTenant(matchOnMatchingLane(request, tenant: tenant, missedAt: generation), tenant)
        }
    }

    /// A control request's refusal for its `Host`, origin (CORS) or parallel id, or its CORS
    /// preflight, recorded (its info line and metrics); nil when it goes on to its route.
    /// - Parameter control: `request` with its target in origin form (``controlRequest(_:)``);
    ///   `request`'s own target names the host of an absolute-form request.
    /// - Parameter origin: the request's allowed origin (``CORS/allowedOrigin(of:control:)``).
    func controlRefusal(_ request: HTTPRequest, as control: HTTPRequest, tenant: TenantID, origin: String?) -> HTTPAnswer? {
        if let refusal = controlHosts.refusal(request) ?? cors?.controlRefusal(control, allowedOrigin: origin) {
            return recorded(.now(refusal.response), control, answeredBy: "control", tenant: tenant)
        }
        if let preflight = cors?.preflight(control, origin: origin) {
            return recorded(.now(preflight), control, answeredBy: "control", tenant: tenant)
        }
        if let problem = ControlParallelID.problem(of: control, tenant: tenant) {
            return refusedParallelID(control, problem, origin: origin, control: true)
        }
        return nil
    }

    /// A control route's `answer`, its CORS fields added, recorded.
    func recordedControl(_ answer: HTTPAnswer, _ control: HTTPRequest, origin: String?, tenant: TenantID) -> HTTPAnswer {
        recorded(cors?.decorate(answer, origin: origin) ?? answer, control, answeredBy: "control", tenant: tenant)
    }

    /// `answer`, holding `tenant` as active (``TenantActivity``) until it is delivered when it
    /// is answered later (a parked wait or long poll, a slow control route, an upstream call,
    /// the matching lane), so `--tenant-ttl` does not drop a tenant in the middle of it
    /// (docs/operations.md#retention). A mock's `delay` holds it until the delay ends
    /// (``recordedWhenDelayEnds(_:delay:_:answeredBy:tenant:)``); an answer given at once needs
    /// no hold (its journal entry is activity once queued). A control call answered at once
    /// journals nothing, so it is activity when it is answered (``TenantActivity/touch(_:)``):
    /// every control call of a tenant counts, on whichever thread it is answered (tester finding
    /// T14B-F7: `GET /catbird/api/mocks`, answered on a worker, did not).
    private func holdingTenant(_ answer: HTTPAnswer, _ tenant: TenantID, control: Bool = false) -> HTTPAnswer {
        guard case .later = answer else {
            if control { activity.touch(tenant) }  // noted only while --tenant-ttl asks for idle times
            return answer
        }
        activity.begin(tenant)
        return answer.whenDelivered { [activity] _ in activity.end(tenant) }
    }

    /// What goes out for what serving decided on a worker: its entry journaled now (a delayed
    /// answer's when its delay ends), or the request forwarded.
    func answer(_ served: consuming MockServing.Served, _ request: HTTPRequest, tenant: TenantID) -> HTTPAnswer {
        switch consume served {
        case let .answered(sent, answeredBy, entry, hit):
            // CORS headers are added by serving, before journaling (the journal records them).
            guard let entry else { return release(sent, journaled: nil, request, answeredBy: answeredBy.rawValue, tenant: tenant) }
            switch journal.appendOrHold(entry) {
            case let .queued(ticket):
                // The hit was served refundable (``respond(to:tenant:)``): it stands now (relaxed) or once committed (strict).
                if durability != .strict, let hit { serving.mocks.settle(hit) }
                let tagged = serving.appended(ticket, of: sent, settling: hit)
                return release(tagged, journaled: ticket, request, answeredBy: answeredBy.rawValue, tenant: tenant)
            case let .held(hold):
                return answerOnceQueued(hold, sent, hit: hit, request, answeredBy: answeredBy.rawValue, tenant: tenant)
            }
        case let .forward(destination):
            return forward(request, to: destination, tenant: tenant)
        }
    }

    /// Sends a journaled answer (tagged with its ticket where it was journaled,
    /// ``MockServing/append(_:of:settling:)``): at once (relaxed durability), or once the writer
    /// has committed its entry, holding no worker meanwhile (strict: ``Journal/answer(_:onceCommitted:sent:)``).
    /// A delayed answer (no ticket) is journaled, and waited for, when its delay ends (``MockServing``).
    /// Whether `responder`'s request still waits for its answer, asked just before its journal
    /// entry is queued by an answer that was chosen later (matching lane, forwarding). Strict
    /// durability also makes the wait from then on one of moments (``HTTPResponder/awaitMoments()``),
    /// so a stop that begins lets the commit release the answer rather than send its 503 while
    /// the row says otherwise (tester findings tester55a-F1, tester57a-F1).
    func stillWaitsToBeJournaled(_ responder: HTTPResponder) -> Bool {
        durability == .strict ? responder.awaitMoments() : responder.isWaiting
    }

    private func release(
        _ response: HTTPResponse, journaled ticket: JournalTicket?, _ request: HTTPRequest, answeredBy: String, tenant: TenantID
    ) -> HTTPAnswer {
        guard durability == .strict, let ticket else {
            guard let delay = response.delay else {
                record(request, response, answeredBy: answeredBy, tenant: tenant)
                return .now(response)
            }
            return .now(recordedWhenDelayEnds(response, delay: delay, request, answeredBy: answeredBy, tenant: tenant))
        }
        return journal.answer(
            response, onceCommitted: ticket, otherwise: marked(Journal.notJournaled, refusing: request),
            sent: recording(request, answeredBy: answeredBy, tenant: tenant))
    }

    /// ``release(_:journaled:_:answeredBy:tenant:)`` for an answer that is already deferred:
    /// sends through `responder` at once (relaxed), or once the entry is committed (strict;
    /// `otherwise` when it is not, ``Journal/notJournaled`` marked for a forwarded request).
    func deliver(
        _ response: HTTPResponse, journaled ticket: JournalTicket, _ request: HTTPRequest, answeredBy: String,
        tenant: TenantID, to responder: HTTPResponder, otherwise: HTTPResponse
    ) {
        let sent = recording(request, answeredBy: answeredBy, tenant: tenant)
        guard durability == .strict else {
            responder.deliver(response, beforeSending: sent)
            return
        }
        journal.send(response, onceCommitted: ticket, to: responder, otherwise: otherwise, sent: sent)
    }

    /// Records (``record(_:_:answeredBy:tenant:)``) what went out for `request`: the response
    /// sent (the server's 503 when it stopped first), or a 499 when the client hung up first and
    /// nothing was sent; captures only the metrics and the log, not the whole handler.
    /// - Parameters:
    ///   - readyAfter: the time from arrival to the answer being ready, when known before it is
    ///     sent (a delayed answer: the delay is not part of it); nil: until now.
    ///   - delay: a mock's delay, shown in the log line (and, when the answer went out before it
    ///     passed, at shutdown, how long after the request's arrival it did).
    ///   - doneAnyway: whether the request's work is done whatever its client does (a control
    ///     request answered on a pool, ``HTTPHangUpWatch/resetOnly``): a 499's line then says
    ///     that what it asked for was done (tester finding T12-F1: "nothing was sent" read as
    ///     nothing done, of a change that was committed).
    func recording(
        _ request: HTTPRequest, answeredBy: String, tenant: TenantID, readyAfter: Duration? = nil, delay: Duration? = nil,
        doneAnyway: Bool = false
    ) -> @Sendable (HTTPDelivery) -> Void {
        { [metrics, log] delivery in
            guard var response = delivery.response else {
                metrics.recordUnanswered(.clientLeft)
                let outcome = doneAnyway ? "its answer was not sent, but what it asked for was done" : "nothing was sent"
                log.info("\(request.method) \(request.target) → \(Self.nothingSent.status) \(answeredBy) tenant=\(tenant): the client hung up first; \(outcome)")
                return
            }
            var cutShort: Duration?
            if let delay {
                response.delay = delay
                // Sent before its delay passed: only a stopping server does that (try10a F16).
                let waited = ContinuousClock.now - request.receivedAt
                if waited < delay { cutShort = waited }
            }
            Self.record(
                request, response, answeredBy: answeredBy, tenant: tenant, metrics: metrics, log: log, elapsed: readyAfter,
                delayCutShortAfter: cutShort)
        }
    }

    /// A delayed `response`, recorded when its delay ends with what went out then: the response
    /// (or the answer its ``HTTPResponse/whenDelayEnds`` gives instead, e.g. strict durability's),
    /// or a 499 when the client hung up during the delay (as the journal records it,
    /// docs/protocol.md#delays). The time recorded is until the answer was ready, without the delay.
    func recordedWhenDelayEnds(
        _ response: HTTPResponse, delay: Duration, _ request: HTTPRequest, answeredBy: String, tenant: TenantID
    ) -> HTTPResponse {
        let record = recording(
            request, answeredBy: answeredBy, tenant: tenant, readyAfter: ContinuousClock.now - request.receivedAt, delay: delay)
        let journaling = response.whenDelayEnds
        var observed = response
        // The tenant is active until the delay ends and its entry is queued (``holdingTenant(_:_:)``).
        activity.begin(tenant)
        observed.whenDelayEnds = { [response, activity] outcome in
            let instead = journaling?(outcome)
            activity.end(tenant)
            guard outcome == .sent else {
                record(.nothingSent)
                return instead
            }
            guard let instead else {
                record(.sent(response))
                return nil
            }
            return instead.whenDelivered(record)
        }
        return observed
    }

    /// What a log line and the metrics show for a request whose client hung up before its answer:
    /// 499 (nginx's "client closed request"), as the journal does (docs/protocol.md#delays).
    static let nothingSent = HTTPResponse(status: 499)

    /// `answer`, recorded when what went out is known (at once, or when the responder is used:
    /// ``HTTPAnswer/whenDelivered(_:)``).
    func recorded(_ answer: HTTPAnswer, _ request: HTTPRequest, answeredBy: String, tenant: TenantID) -> HTTPAnswer {
        answer.whenDelivered(recording(request, answeredBy: answeredBy, tenant: tenant, doneAnyway: answer.hangUpWatch == .resetOnly))
    }

    /// The request's metrics and its info line; the time counts from the request's arrival
    /// (waiting on the control pool included).
    private func record(_ request: HTTPRequest, _ response: HTTPResponse, answeredBy: String, tenant: TenantID) {
        Self.record(request, response, answeredBy: answeredBy, tenant: tenant, metrics: metrics, log: log)
    }

    private static func record(
        _ request: HTTPRequest, _ response: HTTPResponse, answeredBy: String, tenant: TenantID, metrics: RequestMetrics, log: Logger,
        elapsed readyAfter: Duration? = nil, delayCutShortAfter cutShort: Duration? = nil
    ) {
        let elapsed = readyAfter ?? ContinuousClock.now - request.receivedAt
        // Strict durability's 503 in place of an answer whose journal row could not be written is
        // Catbird's own, counted as answered by none as the stop's 503 is: under `mock` it read
        // as mocks answering 5xx, which suites configure all the time (tester finding tester39b-F5).
        let answeredBy = Self.isNotJournaled(response) ? "none" : answeredBy
        metrics.record(answeredBy: answeredBy, status: response.status, latency: elapsed)
        guard log.isEnabled(.info) else { return }
        let cut = cutShort.map { ", cut short: sent \(format($0.milliseconds))ms after arrival as the server stopped" } ?? ""
        let delay = response.delay.map { " +\($0.components.seconds)s delay\(cut)" } ?? ""
        let why = answeredBy == "none" ? Self.notFoundReason(response, of: request).map { ": " + $0 } ?? "" : ""
        log.info("\(request.method) \(request.target) → \(response.status) \(answeredBy) tenant=\(tenant) \(Self.format(elapsed.milliseconds))ms\(delay)\(why)")
        // A refused control call's reason, at debug: an operator sees why a shard's `update` was
        // refused (tester finding T14B-F8: it was logged at no level, and debug added nothing).
        if answeredBy == "control", (400..<500).contains(response.status), log.isEnabled(.debug),
           case let .bytes(body) = response.content, let reason = Self.topLevelReason(in: body) {
            log.debug("\(request.method) \(request.target) → \(response.status) control tenant=\(tenant): \(Self.bounded(reason))")
        }
    }

    /// Whether `response` is strict durability's 503 for an answer withheld (``Journal/notJournaled``).
    private static func isNotJournaled(_ response: HTTPResponse) -> Bool {
        guard response.status == 503, case let .bytes(body) = response.content, case let .bytes(withheld) = Journal.notJournaled.content
        else { return false }
        return body == withheld
    }

    /// The one-line reason of a 404 nothing answered (the closest mock and how it differs,
    /// docs/matching.md#near-misses), at most 1,000 bytes, for its log line: in CI the server
    /// log is often the only thing kept after a failed run (tester finding try9a F10). Its
    /// `no mock matched <method> <target> ` is left out (the line starts with them), so that
    /// the hints at its end are kept (tester finding try10a F16: at 300 bytes the cut took
    /// exactly the hint that explained the miss). Read
    /// back from the answer's JSON only when info lines are logged, without parsing the rest
    /// of it (its near misses may be 64 KiB): the 404's keys are written sorted, so `"reason"`
    /// follows `"nearMisses"`, and its last `"reason":"` is the top-level one (inside a JSON
    /// string a quote is escaped).
    private static func notFoundReason(_ response: HTTPResponse, of request: HTTPRequest) -> String? {
        guard response.status == 404, case let .bytes(body) = response.content, let reason = topLevelReason(in: body) else { return nil }
        let repeated = "no mock matched \(request.method) \(request.target) "
        return bounded(reason.hasPrefix(repeated) ? String(reason.dropFirst(repeated.count)) : reason)
    }

    /// `text` cut to at most 1,000 bytes (with `…` when cut), for a log line.
    private static func bounded(_ text: String) -> String {
        text.utf8.count <= 1000 ? text : String(text.utf8Prefix(1000)) + "…"
    }

    /// The top-level `"reason"` of an error answer's JSON `body` (its last `"reason":"`: the keys
    /// are written sorted and nothing after it holds one unescaped), or nil.
    private static func topLevelReason(in body: [UInt8]) -> String? {
        let key = reasonKey
        var start = body.count - key.count
        while start >= 0, !body[start..<(start + key.count)].elementsEqual(key) { start -= 1 }
        guard start >= 0 else { return nil }
        // The string read in place: a JSONDecoder (and a Data of it) per 404 took 8% of a
        // worker's time under a load of misses at the default info level (perf, 2026-12-06).
        return JSONTextCheck.string(openingAt: start + key.count - 1, in: body)
    }

    private static let reasonKey = Array(#""reason":""#.utf8)

    /// `request` as the control routes read it when its path is `/catbird` or under `/catbird/`
    /// (``isControlTarget(_:)``), else nil. An absolute-form request (`GET http://host:port/catbird/api/mocks`,
    /// what a client using Catbird as its HTTP proxy sends) whose path is one is a control request
    /// too, whatever its host (``ControlHosts`` checks that host), with its target in origin form (`/catbird/api/mocks`): `/catbird`
    /// routes are never served from mocks, forwarded nor recorded, in any request form
    /// (docs/files.md#redirect-and-proxy).
    static func controlRequest(_ request: HTTPRequest) -> HTTPRequest? {
        if request.target.utf8.first == UInt8(ascii: "/") { return startsWithControlPath(request.target) ? request : nil }
        guard let origin = originForm(of: request.target), startsWithControlPath(origin) else { return nil }
        var control = request
        control.target = origin
        return control
    }

    /// Whether a request with exactly this target is a control request (``controlRequest(_:)``):
    /// its path, in origin or absolute form, is `/catbird` or under `/catbird/`.
    static func isControlTarget(_ target: String) -> Bool {
        if target.utf8.first == UInt8(ascii: "/") { return startsWithControlPath(target) }
        return originForm(of: target).map(startsWithControlPath) ?? false
    }

    /// Whether an origin-form target (path and query) starts with a control path: `/catbird`,
    /// then its end, `/` or `?`. Reads the bytes from the start only, so the usual mock request
    /// is told apart at its second byte (splitting off the path and comparing it generically
    /// took about 700 instructions on every request).
    private static func startsWithControlPath(_ target: String) -> Bool {
        var bytes = target.utf8.makeIterator()
        for expected in controlPrefix {
            guard bytes.next() == expected else { return false }
        }
        guard let next = bytes.next() else { return true }
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "?")
    }

    private static let controlPrefix = Array("/catbird".utf8)

    /// What follows the authority of an absolute-form `http` or `https` target, as an origin-form
    /// target (`http://h:1/a?q` → `/a?q`, `http://h?q` → `/?q`, `http://h#f` → `/#f`, `http://h`
    /// → `/`), the authority found as everywhere else (``URIAuthority/Span``: it ends at the first
    /// `/`, `?` or `#`); nil for any other scheme or form.
    static func originForm(of target: String) -> String? {
        guard let span = URIAuthority.Span(ofHTTP: target[...]) else { return nil }
        let rest = target[span.whole.upperBound...]
        guard let first = rest.utf8.first else { return "/" }
        return first == UInt8(ascii: "/") ? String(rest) : "/" + rest
    }

    static func tenant(of request: HTTPRequest) -> TenantID {
        TenantID(request.headers.first(TenantID.headerName) ?? "")
    }

    private static func format(_ milliseconds: Double) -> String {
        let tenths = Int((milliseconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
