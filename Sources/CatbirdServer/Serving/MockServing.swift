import CatbirdDomain
import CatbirdHTTP

/// Answers a non-control request (spec 1.4): the caller's mocks, then the default tenant's,
/// else 404 `{"error":true,"reason":"Not Found"}`; journals the request either way.
struct MockServing: Sendable {
    let mocks: MockStore
    let journal: Journal

    func respond(to request: HTTPRequest, tenant: TenantID) -> (HTTPResponse, AnsweredBy) {
        let hit = mocks.serve(tenant: tenant, method: request.method, target: request.target) { request.headers.first($0) }
        let response: HTTPResponse
        if let hit {
            let mock = hit.mock.response
            var headers = HTTPHeaders()
            for (name, value) in mock.headers { headers.add(name: name, value: value) }
            let delay = mock.delay.flatMap { $0 > 0 ? Duration.seconds($0) : nil }
            response = HTTPResponse(status: mock.status, headers: headers, body: mock.body ?? [], delay: delay)
        } else {
            response = APIError.notFound.response
        }
        journal(request: request, response: response, answeredBy: hit == nil ? .none : .mock, hit: hit, tenant: tenant)
        return (response, hit == nil ? .none : .mock)
    }

    /// Appends the request and its answer to the tenant's journal: the request as received
    /// (`request.body` is what was kept of it), the response as sent, and the time from arrival
    /// to the response, any delay included.
    func journal(request: HTTPRequest, response: HTTPResponse, answeredBy: AnsweredBy, hit: MockHit?, tenant: TenantID) {
        let delayMs = response.delay.map { Double($0.components.seconds) * 1000 } ?? 0
        let elapsed = ContinuousClock.now - request.receivedAt
        journal.append(JournalEntry(
            time: Timestamp.now(), tenant: tenant, method: request.method, url: request.target,
            requestHeaders: JSONText.object(request.headers.fields), requestBody: request.body,
            status: response.status, responseHeaders: JSONText.object(response.headers.fields),
            responseBody: response.body, answeredBy: answeredBy,
            mockHit: hit.map { MockHitRecord(mockID: $0.mock.id, exhausted: $0.exhausted) },
            durationMs: elapsed.milliseconds + delayMs))
    }
}

extension Duration {
    /// This duration in (fractional) milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
