/// What the server calls to answer requests. Called on the server's worker threads, concurrently:
/// implementations must be thread-safe and must not block. Work that may take long (SQL, big
/// deletes, upstream calls, long polls) answers with ``HTTPAnswer/later(watching:_:)``.
public protocol HTTPHandler: Sendable {
    /// Answers a complete request, now or later.
    func respond(to request: HTTPRequest) -> HTTPAnswer

    /// Answers a request whose body exceeded `limit` bytes, now or later. `request.body` is
    /// empty: the rest of the upload is discarded, and the server closes the connection after
    /// the answer (it adds `Connection: close`). The usual answer is a 413.
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer

    /// Answers a request refused for `problem` before its body is read, now or later (the
    /// server adds `Connection: close` and closes the connection afterwards). `request.body` is
    /// empty; its target is as far as it could be read (bytes that are not UTF-8 shown as
    /// U+FFFD), its headers those accepted (a refused field line is left out). The usual answer
    /// is `problem.status`.
    func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPAnswer

    /// Answers, from its head alone, a request whose client waits for `100 Continue` before it
    /// sends the body (`Expect: 100-continue` over HTTP/1.1 with a body announced, RFC 9110
    /// §10.1.1), when the head already decides the answer (an unknown route, a wrong method or
    /// media type): the answer goes out instead of the 100, the body is never read, and the
    /// server closes the connection after it (it adds `Connection: close`). nil: the 100 goes
    /// out and the request is read and answered as usual. `head.body` is empty. Must not block.
    /// Default: nil.
    func respondBeforeBody(_ head: HTTPRequest) -> HTTPAnswer?

    /// Told when a request's header section was accepted and a body follows (a
    /// `Content-Length` above 0, or chunked), before any of it is read: a slow upload can take
    /// long. Returns what the server calls once when the request completes, however it ends
    /// (answered, refused, its client gone), on the connection's worker thread; nil for
    /// nothing. `head.body` is empty. Must not block. Default: nil.
    func bodyWillArrive(_ head: HTTPRequest) -> (@Sendable () -> Void)?

    /// Told of a request whose request line was read but whose answer came from none of the
    /// methods above (``HTTPRequestEnding``), once the connection is done with it: whatever was
    /// sent has been sent (a stopping server's own 503 is told as it is queued). `request`
    /// holds what is known: the target and arrival time always; the method, version and
    /// headers only when the header section was read whole and accepted (else the method is
    /// `""` and there are no headers); the body as far as it arrived. Also told of a request
    /// line that never ended (``HTTPRequestEnding/requestLineTimedOut(limit:written:)``; no
    /// method, no target), on the closing connection's worker thread. Must not block. Default:
    /// nothing.
    func requestEndedUnanswered(_ request: HTTPRequest, ending: HTTPRequestEnding)

    /// The answer written to a connection whose request head was not complete `timeout` after
    /// its request line (``HTTPServer/Configuration/headTimeout``), or that trickled a request
    /// line for that long; asked once, when the server is created, and written as it is
    /// (`Connection: close` added). The request is told afterwards as
    /// ``HTTPRequestEnding/headTimedOut(limit:written:)``, the trickled line as
    /// ``HTTPRequestEnding/requestLineTimedOut(limit:written:)``. Default: 408 with the JSON error body.
    func respondToSlowHead(timeout: Duration) -> HTTPResponse

    /// The answer written to a connection whose request body stopped arriving: no byte for
    /// `timeout` (``HTTPServer/Configuration/headTimeout``); asked once, when the server is
    /// created, and written as it is (`Connection: close` added). The request is told
    /// afterwards as ``HTTPRequestEnding/bodyStalled(limit:written:)``, or as
    /// ``HTTPRequestEnding/bodyClosedForRoom(written:)`` when it was closed to make room. Default: 408
    /// with the JSON error body.
    func respondToStalledBody(timeout: Duration) -> HTTPResponse

    /// The answer written to a connection whose body was still arriving when it was closed to
    /// make room, its holder (tenant) having more than its share of the slots in uploads under
    /// way; asked once, when the server is created, and written as it is (`Connection: close`
    /// added). The request is told afterwards as ``HTTPRequestEnding/uploadClosedOverShare(written:)``.
    /// Default: 408 with the JSON error body.
    func respondToUploadClosedOverShare() -> HTTPResponse

    /// The answer the server sends in place of the handler's when it stops: to a request
    /// answered later that is still waiting (``HTTPAnswer/later(watching:_:)``), and to one that
    /// arrives meanwhile; asked once, when the server is created, and sent as it is. Default:
    /// ``HTTPResponse/serverStopping``.
    var stoppingResponse: HTTPResponse { get }

    /// Told that a file body (``HTTPResponse/Body/file(path:offset:length:)``) ended after `sent`
    /// of its `promised` bytes because the file at `path` shrank while it was sent: the
    /// connection is closed, so the client sees an incomplete answer. Must not block. Default:
    /// nothing.
    func fileBodyEndedShort(path: String, sent: UInt64, promised: UInt64)

    /// Told that a file body (``HTTPResponse/Body/file(path:offset:length:)``) ended after `sent`
    /// of its `promised` bytes because reading the file at `path` failed with `errorNumber` (an
    /// `errno` value such as `EIO`): the connection is closed, so the client sees an incomplete
    /// answer. Must not block. Default: nothing.
    func fileBodyReadFailed(path: String, sent: UInt64, promised: UInt64, errorNumber: Int32)

    /// Told that the answer to `request` queued with the ``HTTPResponse/completionTag`` `tag`
    /// did not go out whole: its connection ended before libmicrohttpd had handed the last byte
    /// to the socket (its completion notice, `MHD_OPTION_NOTIFY_COMPLETED`, came with another
    /// code than `MHD_REQUEST_TERMINATED_COMPLETED_OK`), or its file body ended early
    /// (``HTTPAnswerCutShort``). Called on the connection's worker thread; must not block.
    /// Default: nothing.
    func answerCutShort(_ request: HTTPRequest, tag: UInt64, ending: HTTPAnswerCutShort)
}

extension HTTPHandler {
    /// ``HTTPResponse/serverStopping``.
    public var stoppingResponse: HTTPResponse { HTTPResponse.serverStopping }

    /// `problem.status` with the JSON error body (``HTTPResponse/error(status:reason:)``).
    public func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPAnswer {
        .now(HTTPResponse.error(status: problem.status, reason: problem.reason))
    }

    /// 408 with the JSON error body, saying the limit.
    public func respondToStalledBody(timeout: Duration) -> HTTPResponse {
        HTTPResponse.error(
            status: 408,
            reason: "the request body received no byte for \(timeout.components.seconds) seconds (or for a second while every "
                + "connection slot was taken); the connection is closed")
    }

    /// The reason of ``respondToUploadClosedOverShare()``'s 408.
    public static var uploadClosedOverShareReason: String {
        "the request body was still arriving while every connection slot was taken and uploads under way held more than "
            + "their share of them (this tenant more than 1/8, or all tenants together more than 7/8), so the connection is "
            + "closed to make room for others: send fewer uploads at once, or send them faster"
    }

    /// 408 with the JSON error body, saying why.
    public func respondToUploadClosedOverShare() -> HTTPResponse {
        HTTPResponse.error(status: 408, reason: Self.uploadClosedOverShareReason)
    }

    /// 408 with the JSON error body, saying the limit.
    public func respondToSlowHead(timeout: Duration) -> HTTPResponse {
        HTTPResponse.error(
            status: 408,
            reason: "the request line and header fields were not complete within \(timeout.components.seconds) seconds (or were "
                + "still arriving after a second while every connection slot was taken); the connection is closed")
    }

    /// Nothing.
    public func respondBeforeBody(_ head: HTTPRequest) -> HTTPAnswer? { nil }
    public func bodyWillArrive(_ head: HTTPRequest) -> (@Sendable () -> Void)? { nil }

    public func requestEndedUnanswered(_ request: HTTPRequest, ending: HTTPRequestEnding) {}

    /// Nothing.
    public func answerCutShort(_ request: HTTPRequest, tag: UInt64, ending: HTTPAnswerCutShort) {}

    /// Nothing.
    public func fileBodyEndedShort(path: String, sent: UInt64, promised: UInt64) {}

    /// Nothing.
    public func fileBodyReadFailed(path: String, sent: UInt64, promised: UInt64, errorNumber: Int32) {}
}
