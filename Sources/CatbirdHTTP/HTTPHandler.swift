/// What the server calls to answer requests. Called on the server's worker threads, concurrently:
/// implementations must be thread-safe and must not block. Work that may take long (SQL, big
/// deletes, upstream calls, long polls) answers with ``HTTPAnswer/later(_:)``.
public protocol HTTPHandler: Sendable {
    /// Answers a complete request, now or later.
    func respond(to request: HTTPRequest) -> HTTPAnswer

    /// Answers a request whose body exceeded `limit` bytes. `request.body` is empty: the rest of
    /// the upload is discarded. The usual answer is a 413.
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPResponse

    /// Answers a request refused for `problem` before its body is read (the server closes the
    /// connection afterwards). `request.body` is empty; its target and header values are as
    /// far as they could be read (bytes that are not UTF-8 shown as U+FFFD). The usual answer
    /// is `problem.status`.
    func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPResponse

}

extension HTTPHandler {
    /// `problem.status` with the JSON error body (``HTTPResponse/error(status:reason:)``).
    public func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPResponse {
        HTTPResponse.error(status: problem.status, reason: problem.reason)
    }

}
