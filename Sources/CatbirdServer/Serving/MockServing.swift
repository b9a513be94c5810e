import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import CatbirdWire

/// Answers a non-control request (`docs/matching.md#resolution-order`): the caller's mocks,
/// then the default tenant's, then the mocks directory's files (``FileServing``), then the
/// upstream (``Forwarding``: the caller forwards), else 404 `{"error":true,"reason":"Not Found"}`;
/// journals what it answers itself.
struct MockServing: Sendable {
    let mocks: MockStore
    let journal: Journal
    /// The mocks directory, when one is configured and files are served (not while recording).
    let files: FileServing?
    /// Keeps the admin token out of the journal (``AdminAccess/redactingToken(in:)``).
    let admin: AdminAccess
    /// Where unanswered requests go in redirect and proxy modes; nil when neither is on.
    let forwarding: Forwarding?
    /// Where a regexp stopped by the evaluation budget is reported (warning).
    let log: Logger

    /// The answer when nothing matched, built once.
    private static let notFound = APIError.notFound.response

    /// What serving decided: an answer (journaled; the ticket says when its entry is committed,
    /// for strict durability), or an upstream to forward to (the caller journals the upstream's
    /// answer).
    enum Served {
        case answered(HTTPResponse, CatbirdRequest.AnsweredBy, JournalTicket)
        case forward(Forwarding.Destination)
    }

    func respond(to request: HTTPRequest, tenant: TenantID) -> Served {
        guard let hit = mocks.serve(
            tenant: tenant, method: request.method, target: request.target,
            headerValue: { request.headers.first($0) },
            outOfTime: { reportOutOfTime($0, request: request, tenant: tenant) })
        else {
            if let answer = files?.respond(to: request) {
                let ticket = journal(
                    request: request, response: answer.response,
                    responseHeadersJSON: JSONText.object(answer.response.headers.fields),
                    answeredBy: .file, hit: nil, tenant: tenant, filePath: answer.path.isEmpty ? nil : answer.path,
                    bodyPrefix: answer.journalBody)
                return .answered(answer.response, .file, ticket)
            }
            if let forwarding, request.method == "CONNECT", forwarding.proxyEnabled {
                return answered(Forwarding.connectNotSupported, request: request, tenant: tenant)
            }
            if let destination = forwarding?.destination(of: request.target) { return .forward(destination) }
            let ticket = journal(
                request: request, response: Self.notFound, responseHeadersJSON: APIError.headersJSON,
                answeredBy: .unanswered, hit: nil, tenant: tenant)
            return .answered(Self.notFound, .unanswered, ticket)
        }
        let mock = hit.mock
        let delay = mock.response.delay.flatMap { $0 > 0 ? Duration.seconds($0) : nil }
        let response = HTTPResponse(
            status: mock.response.status, headers: HTTPHeaders(mock.responseHeaderFields),
            body: mock.responseBody, delay: delay)
        let ticket = journal(
            request: request, response: response, responseHeadersJSON: mock.responseHeadersJSON,
            answeredBy: .mock, hit: hit, tenant: tenant)
        return .answered(response, .mock, ticket)
    }

    /// Logs a mock whose regular expression ran out of the request's budget
    /// (docs/matching.md#evaluation-budget): it counted as not matching this request.
    private func reportOutOfTime(_ mock: Mock, request: HTTPRequest, tenant: TenantID) {
        let pattern = mock.pattern.source
        log.warning(
            "mock \(mock.id) of tenant \(JSONText.string(tenant.rawValue)) (\(pattern.method.rawValue) \(pattern.url.kind.rawValue) \(JSONText.string(pattern.url.value))) skipped: its pattern ran out of the \(MockStore.requestBudget.milliseconds) ms evaluation budget for \(request.method) \(JSONText.string(request.target))")
    }

    /// `response`, answered by the server itself (no mock, file or upstream) and journaled so.
    func answered(_ response: HTTPResponse, request: HTTPRequest, tenant: TenantID) -> Served {
        let ticket = journal(
            request: request, response: response, responseHeadersJSON: JSONText.object(response.headers.fields),
            answeredBy: .unanswered, hit: nil, tenant: tenant)
        return .answered(response, .unanswered, ticket)
    }

    /// Appends the request and its answer to the tenant's journal: the request as received
    /// (`request.body` is what was kept of it), the response as sent, and the time from arrival
    /// to the response, any delay included. `responseHeadersJSON` is `response.headers` as the
    /// journal's JSON object, known in advance (a mock's ``Mock/responseHeadersJSON``, an API
    /// error's ``APIError/headersJSON``) so it is not encoded again per request.
    /// - Returns: the entry's ticket (``Journal/whenCommitted(_:_:)``).
    @discardableResult
    func journal(
        request: HTTPRequest, response: HTTPResponse, responseHeadersJSON: String,
        answeredBy: CatbirdRequest.AnsweredBy, hit: MockHit?, tenant: TenantID, filePath: String? = nil,
        bodyPrefix: (bytes: [UInt8], size: Int)? = nil
    ) -> JournalTicket {
        let delayMs = response.delay?.milliseconds ?? 0
        let elapsed = ContinuousClock.now - request.receivedAt
        return journal.append(JournalEntry(
            time: Timestamp.now(), tenant: tenant, method: request.method, url: request.target,
            requestHeaders: JSONText.object(admin.redactingToken(in: request.headers.fields)), requestBody: request.body,
            status: response.status, responseHeaders: responseHeadersJSON,
            responseBody: bodyPrefix?.bytes ?? response.body, answeredBy: answeredBy,
            mockHit: hit.map { MockHitRecord(mockID: $0.mock.id, exhausted: $0.exhausted) },
            durationMs: elapsed.milliseconds + delayMs, filePath: filePath,
            responseBodySize: bodyPrefix?.size))
    }
}
