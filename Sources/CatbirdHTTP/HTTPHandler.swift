/// What the server calls to answer requests. Called on the server's worker threads, concurrently:
/// implementations must be thread-safe and must not block. Work that may take long (SQL, big
/// deletes, upstream calls, long polls) answers with ``HTTPAnswer/later(_:)``.
public protocol HTTPHandler: Sendable {
    /// Answers a complete request, now or later.
    func respond(to request: HTTPRequest) -> HTTPAnswer

    /// Answers a request whose body exceeded `limit` bytes. `request.body` is empty: the rest of
    /// the upload is discarded. The usual answer is a 413.
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPResponse
}
