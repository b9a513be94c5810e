import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one transport every call goes through: request building, the status check, and the
/// completion-handler, async and synchronous forms.
extension Catbird {
    /// The URL request for `call`: base URL plus path and query, the JSON body with
    /// `Content-Type: application/json`, and `X-Catbird-Parallel-Id` when `parallelId` is set.
    func urlRequest<Output>(for call: APICall<Output>, parallelId: String?) -> URLRequest {
        var request = URLRequest(url: endpoint(call.path, query: call.query))
        request.httpMethod = call.method
        if let body = call.body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        // An empty id is the default tenant, as in launchArguments: no header (the server
        // refuses an empty X-Catbird-Parallel-Id on control calls, docs/tenancy.md).
        if let parallelId, !parallelId.isEmpty {
            request.setValue(parallelId, forHTTPHeaderField: CatbirdAction.parallelIdHeaderField)
        }
        if let timeout = call.timeout {
            request.timeoutInterval = timeout
        }
        if let adminToken, call.isAdmin || (call.isAdminForDefaultTenant && (parallelId ?? "").isEmpty) {
            request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    /// `url` with the percent-encoded `segments` appended to its path and the percent-encoded
    /// `query` as its query.
    private func endpoint(_ segments: [String], query: [(name: String, value: String)]) -> URL {
        let encodedPath = segments.map(Self.percentEncodedSegment).joined(separator: "/")
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.appendingPathComponent(segments.joined(separator: "/"))
        }
        var basePath = components.percentEncodedPath
        while basePath.hasSuffix("/") { basePath.removeLast() }
        components.percentEncodedPath = basePath + "/" + encodedPath
        components.percentEncodedQuery =
            query.isEmpty ? nil : query.map { "\(Self.percentEncoded($0.name))=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
        components.fragment = nil
        return components.url ?? url.appendingPathComponent(segments.joined(separator: "/"))
    }

    /// RFC 3986's unreserved characters, the only ones left unencoded in a path segment or a
    /// query value (so `/`, `?`, `&`, `+` and `%` always travel encoded).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` as one path segment: percent-encoded like a query value, and a segment that is
    /// `.` or `..` alone with its dots as `%2E`, since URL resolution removes dot segments
    /// (RFC 3986 §5.2.4: `tenants/..` became the parent path; T16-F3).
    private static func percentEncodedSegment(_ text: String) -> String {
        text == "." || text == ".." ? String(repeating: "%2E", count: text.count) : percentEncoded(text)
    }

    private static func percentEncoded(_ text: String) -> String {
        // addingPercentEncoding returns nil only for strings that are not valid Unicode,
        // which a Swift String never is.
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Starts `call` on `session` for the tenant `parallelId`; `completion` runs once, on the
    /// session's delegate queue, with the decoded answer, a ``CatbirdError`` for a non-2xx
    /// status or for a 2xx answer that is not Catbird's JSON (tester finding tester22a-F17: the
    /// client pointed at another HTTP server), or the `URLError` of a transport failure.
    /// A call Catbird refuses with 429 (its tenant's fair share taken, nothing done) is sent
    /// again after a pause, for up to 30 seconds (``BusyRetry``); each request is run through
    /// `attempts`, which cancels the one under way. Returns the first request.
    @discardableResult
    func start<Output>(
        _ call: APICall<Output>, parallelId: String?, on session: URLSession, attempts: CallAttempts = CallAttempts(),
        completion: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) -> URLSessionTask {
        let decode = call.decode
        let recover = call.recover
        let statuses = call.successStatuses
        let request = urlRequest(for: call, parallelId: parallelId)
        let base = url
        if let refusal = call.refusal {
            // Nothing sent: the task is made but never resumed, and the refusal delivered where
            // an answer would be.
            let task = session.dataTask(with: request)
            session.delegateQueue.addOperation { completion(.failure(refusal)) }
            return task
        }
        let firstSent = Date()
        @Sendable func attempt(_ number: Int) -> URLSessionTask {
            session.dataTask(with: request) { data, response, error in
                if error == nil, BusyRetry.isRefusal(response, data: data),
                   let pause = BusyRetry.pause(before: number, retryAfter: (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After"),
                                               firstSent: firstSent) {
                    attempts.ended()
                    DispatchQueue.global().asyncAfter(deadline: .now() + pause) { attempts.run(attempt(number + 1)) }
                    return
                }
                completion(Result {
                    if let error { throw error }
                    guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
                    guard (200..<300).contains(http.statusCode) else {
                        let failure = CatbirdError(statusCode: http.statusCode, body: data ?? Data(), base: base)
                        if let recover, CatbirdError.isCatbirdsError(data ?? Data()), let recovered = recover(failure) { return recovered }
                        throw failure
                    }
                    if let statuses, !statuses.contains(http.statusCode) {
                        throw CatbirdError(unexpectedStatus: data ?? Data(), response: http, request: request, base: base, expected: statuses)
                    }
                    do {
                        return try decode(data ?? Data())
                    } catch let error as DecodingError {
                        throw CatbirdError(unreadableAnswer: data ?? Data(), response: http, request: request, base: base, error: error)
                    }
                })
            }
        }
        let task = attempt(1)
        attempts.run(task)
        return task
    }

    /// Runs `call` for the caller's tenant (``parallelId``, read once) and blocks the calling
    /// thread until its answer arrives.
    ///
    /// - Throws: as ``perform(_:parallelId:)``.
    func perform<Output>(_ call: APICall<Output>) throws -> Output {
        try perform(call, parallelId: parallelId)
    }

    /// Runs `call` for the tenant `parallelId` on ``performSession`` (which never delivers on
    /// the main queue unless a caller-supplied session with a delegate forces it) and blocks
    /// the calling thread until its answer arrives, or until ``syncDeadline`` passes.
    ///
    /// - Throws: ``CatbirdError`` or `URLError`, as
    ///   ``start(_:parallelId:on:completion:)``; `URLError(.timedOut)` when the deadline passes
    ///   (the request is then cancelled).
    func perform<Output>(_ call: APICall<Output>, parallelId: String?) throws -> Output {
        if let refusal = call.refusal { throw refusal }  // nothing to send, nothing to wait for
        let outcome = Locked<Result<Output, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let attempts = CallAttempts()
        start(call, parallelId: parallelId, on: sessions.performSession(longPoll: call.timeout != nil), attempts: attempts) { result in
            outcome.withLock { $0 = result }
            answered.signal()
        }
        if let syncDeadline {
            guard answered.wait(timeout: .now() + syncDeadline + (call.timeout ?? 0)) == .success else {
                attempts.cancel()
                throw URLError(.timedOut)
            }
        } else {
            answered.wait()
        }
        // The semaphore is signalled only after the outcome was stored.
        guard let result = outcome.current else { preconditionFailure("answered without an outcome") }
        return try result.get()
    }

    /// Runs `call` for the caller's tenant (``parallelId``, read once).
    ///
    /// - Throws: as ``perform(_:parallelId:)-async``.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    func perform<Output>(_ call: APICall<Output>) async throws -> Output {
        try await perform(call, parallelId: parallelId)
    }

    /// Runs `call` for the tenant `parallelId` on ``performSession``; cancelling the awaiting
    /// task cancels the request (it then throws `URLError(.cancelled)`).
    ///
    /// - Throws: ``CatbirdError`` or `URLError`, as
    ///   ``start(_:parallelId:on:completion:)``.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    func perform<Output>(_ call: APICall<Output>, parallelId: String?) async throws -> Output {
        if let refusal = call.refusal { throw refusal }
        let attempts = CallAttempts()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
                start(call, parallelId: parallelId, on: sessions.performSession(longPoll: call.timeout != nil), attempts: attempts) {
                    continuation.resume(with: $0)
                }
            }
        } onCancel: {
            attempts.cancel()
        }
    }
}
