/// What a handler gives back for a request: the response now, or a promise to answer later.
///
/// ```swift
/// func respond(to request: HTTPRequest) -> HTTPAnswer {
///     guard request.path == "/slow" else { return .now(HTTPResponse(status: 404)) }
///     return .later { responder in
///         pool.run { responder.send(HTTPResponse(status: 200, body: Array(slowWork().utf8))) }
///     }
/// }
/// ```
public enum HTTPAnswer: Sendable {
    /// Send this response (after its ``HTTPResponse/delay``, if any).
    case now(HTTPResponse)
    /// Answer later. The server parks the connection (libmicrohttpd suspends it: no worker
    /// thread is held and its other connections keep being served), then calls `start` once, on
    /// the worker thread, with the ``HTTPResponder`` that completes the request from any thread.
    ///
    /// `start` must return quickly: hand slow work to another thread (``HTTPWorkPool``) or
    /// register the responder with whatever will answer (a timer, a journal waiter, an upstream
    /// call). If the server is already stopping, `start` is not called and the client gets 503.
    case later(_ start: @Sendable (HTTPResponder) -> Void)
}
