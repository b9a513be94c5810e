/// What the server calls to answer requests. Called on the server's worker threads, concurrently:
/// implementations must be thread-safe and should not block for long.
public protocol HTTPHandler: Sendable {
    /// Answers a complete request.
    func respond(to request: HTTPRequest) -> HTTPResponse

    /// Answers a request whose body exceeded `limit` bytes. `request.body` is empty: the rest of
    /// the upload is discarded. The usual answer is a 413.
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPResponse
}
