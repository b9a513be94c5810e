/// How a request ended that none of the ``HTTPHandler`` answering methods saw to the end:
/// its request line was read (libmicrohttpd's URI log callback ran), then libmicrohttpd
/// refused it itself, the client or the clock ended it first, or a stopping server answered it;
/// or its request line never ended before the head deadline (``requestLineTimedOut(limit:written:)``)
/// (``HTTPHandler/requestEndedUnanswered(_:ending:)``, docs/protocol.md#malformed-requests).
public enum HTTPRequestEnding: Sendable, Equatable {
    /// libmicrohttpd answered with its own error page, `status` (400, 413, 431): a header line
    /// without a colon, a `Content-Length` that is not a number, a `Cookie` or a head too large
    /// for the connection memory, a malformed chunked body. Its headers and HTML body are
    /// libmicrohttpd's, not known here.
    case refusedByLibrary(status: Int)
    /// The client closed or reset the connection before the request was complete; nothing was
    /// sent.
    case clientLeft
    /// The connection's idle timeout passed before the request was complete; nothing was sent.
    case timedOut
    /// The request's head (request line and header section) was not complete `limit` after
    /// its request line arrived (``HTTPServer/Configuration/headTimeout``): the server wrote
    /// its 408 (``HTTPHandler/respondToSlowHead(timeout:)``), `written` as it went out (nil:
    /// not written whole, the socket still sending an earlier answer), and closed the connection.
    case headTimedOut(limit: Duration, written: WrittenAnswer?)
    /// A request line had not ended `limit` (``HTTPServer/Configuration/headTimeout``) after its
    /// bytes were first seen, whether they kept trickling in or stopped (tester finding
    /// tester24a-F2), counted from the first look that saw them (within a second of the
    /// first): the server wrote the same 408 (`written`, as for ``headTimedOut(limit:written:)``)
    /// and closed the connection. No request had started: the request told has no method, no
    /// target and no headers, and its arrival time is that first look (tester finding
    /// tester23b-F1: such a connection was neither journaled, logged nor counted).
    case requestLineTimedOut(limit: Duration, written: WrittenAnswer?)
    /// The request's body stopped arriving: its socket received no byte for `limit`
    /// (``HTTPServer/Configuration/headTimeout``); the server wrote its 408
    /// (``HTTPHandler/respondToStalledBody(timeout:)``), `written` as for ``headTimedOut(limit:written:)``,
    /// and closed the connection.
    case bodyStalled(limit: Duration, written: WrittenAnswer?)
    /// Every connection slot was taken, and the request's body had received no byte for
    /// ``roomQuietLimit``: the server wrote the same 408 (`written`, as for
    /// ``headTimedOut(limit:written:)``) and closed the connection to make room for new clients
    /// (``HTTPServer/Configuration/connectionLimit``).
    case bodyClosedForRoom(written: WrittenAnswer?)
    /// Every connection slot was taken, and the request's head (its header fields) had been
    /// under way for ``roomQuietLimit`` or longer: the server wrote the slow head's 408
    /// (`written`, as for ``headTimedOut(limit:written:)``) and closed the connection to make
    /// room for new clients (tester finding tester40b-F3).
    case headClosedForRoom(written: WrittenAnswer?)
    /// Every connection slot was taken, and the request's body was still arriving while its
    /// holder (its tenant) had more than its share of the slots in uploads under way
    /// (``ConnectionWatch/uploadShare(slots:)``): the server wrote
    /// ``HTTPHandler/respondToUploadClosedOverShare()``'s 408 (`written`, as for
    /// ``headTimedOut(limit:written:)``) and closed the connection to make room (tester finding tester41a-F5).
    case uploadClosedOverShare(written: WrittenAnswer?)

    /// The answer the server wrote itself before the connection closed (the watch's 408), as
    /// it went out; nil for the other endings, and when it was not written whole.
    public var written: WrittenAnswer? {
        switch self {
        case let .headTimedOut(_, written), let .requestLineTimedOut(_, written), let .bodyStalled(_, written),
             let .bodyClosedForRoom(written), let .headClosedForRoom(written), let .uploadClosedOverShare(written): written
        default: nil
        }
    }
    /// The server stopped before the request was complete; nothing was sent.
    case serverStopped
    /// Every connection slot was taken, and the watch closed the request's keep-alive
    /// connection, idle between two requests, to make room just as this request arrived on it:
    /// nothing was sent (its client sees the connection closed, as after an idle timeout, and
    /// HTTP clients retry such a request on a new connection; tester finding tester70a-F2: it
    /// was told as the client's hang-up, in the default tenant's journal).
    case idleClosedForRoom
    /// The server was stopping and sent its own `status` (503, `the server is stopping`) in
    /// place of the handler's answer: a request that came past the stop's grace second (the
    /// handler never saw it), or an answer the handler gave for later when the server could no
    /// longer park the connection for it (its start closure was never called). Told when the
    /// answer is queued, for the log line and the metrics (``HTTPServer/stop()``).
    case refusedWhileStopping(status: Int)
    /// The request's head left `room` bytes of the connection memory for an answer's head,
    /// fewer than ``ResponseHeadRoom/leastToAnswer``: no answer could have been sent, so the
    /// connection was closed with nothing written, before the handler saw the request (no mock
    /// answered it, no control change was made).
    case noRoomToAnswer(room: Int)

    /// How long a body must have received nothing before its connection may be closed to make
    /// room (``bodyClosedForRoom``): 1 s.
    public static let roomQuietLimit: Duration = ConnectionWatch.minimumIdleAge
}
