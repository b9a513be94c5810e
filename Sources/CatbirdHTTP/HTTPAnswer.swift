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
    /// `watching` says what, meanwhile, counts as the client gone (``HTTPResponder/isWaiting``
    /// false, the connection closed with nothing sent): its end of stream for a wait that only
    /// serves the client (the default), a reset only for work done whatever it does.
    case later(watching: HTTPHangUpWatch = .endOfStream, _ start: @Sendable (HTTPResponder) -> Void)
    /// Send an answer known now within moments, once it is released (``HTTPHeldAnswer``):
    /// parked like ``later(watching:_:)``, but the socket is not watched for a hang-up meanwhile (that
    /// watch costs two `epoll_ctl` calls and a lock per request); a client that hung up is
    /// noticed when the answer is written. For waits of a few milliseconds that end whatever
    /// the client does, e.g. strict durability's wait for a journal commit; not for delays,
    /// polls or upstream calls. While the server stops, such a wait is still parked and gets
    /// its own answer (``HTTPServer/stop()``).
    case soon(HTTPHeldAnswer)
}

extension HTTPAnswer {
    /// What counts as its client gone while it waits: nil for an answer sent at once or held
    /// (``soon(_:)``, whose socket is not watched).
    public var hangUpWatch: HTTPHangUpWatch? {
        guard case let .later(watch, _) = self else { return nil }
        return watch
    }

    /// This answer with `transform` applied to its response, whenever that is sent: at once for
    /// ``now(_:)``, else when the responder is used (same kind: a ``later(watching:_:)`` stays watched alike, a
    /// ``soon(_:)`` does not). For adding fields or observing what goes out (a log line, CORS,
    /// `Connection: close`); `transform` runs once, on the thread that sends (for ``soon(_:)``:
    /// at once, once on each of the two responses it may send).
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPAnswer {
        switch self {
        case let .now(response):
            return .now(transform(response))
        case let .later(watch, start):
            return .later(watching: watch) { responder in start(Self.transforming(responder, transform)) }
        case let .soon(held):
            return .soon(held.mapped(transform))
        }
    }

    /// This answer, with `observe` told what goes out once that is known, before it is written:
    /// at once for ``now(_:)``, else when the responder is used, with what the server sent in its place if
    /// it answered first (a 503 at shutdown; nothing when the client hung up). For a log line or
    /// a metric that must show what was sent, not what the handler meant to send.
    public func whenDelivered(_ observe: @escaping @Sendable (HTTPDelivery) -> Void) -> HTTPAnswer {
        switch self {
        case let .now(response):
            observe(.sent(response))
            return self
        case let .later(watch, start):
            return .later(watching: watch) { responder in start(Self.observing(responder, observe)) }
        case let .soon(held):
            return .soon(held.observed(by: observe))
        }
    }

    /// Gives this answer through `responder`, the responder of a request already answered
    /// later (e.g. one whose work moved to a pool after the handler returned): ``now(_:)``
    /// sends its response (its delay still applies); ``later(watching:_:)`` hands `responder` to its
    /// start closure; ``soon(_:)`` sends through it the response its release picks. The
    /// connection keeps the watch it was parked with (``HTTPHangUpWatch``).
    public func complete(through responder: HTTPResponder) {
        switch self {
        case let .now(response): responder.send(response)
        case let .later(_, start): start(responder)
        case let .soon(held):
            // A wait of moments still: a stop lets it end with its own answer (tester55a-F1).
            responder.awaitMoments()
            held.start { send in
                responder.deliver(send ? held.response : held.otherwise) { held.observe?($0) }
            }
        }
    }

    private static func transforming(_ responder: HTTPResponder, _ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponder {
        HTTPResponder.delivering(waiting: { responder.isWaiting }, leaving: responder.whenClientLeaves, moments: responder.awaitMoments) {
            responder.deliver(transform($0), beforeSending: $1)
        }
    }

    private static func observing(_ responder: HTTPResponder, _ observe: @escaping @Sendable (HTTPDelivery) -> Void) -> HTTPResponder {
        HTTPResponder.delivering(
            waiting: { responder.isWaiting }, leaving: responder.whenClientLeaves, moments: responder.awaitMoments
        ) { response, beforeSending in
            responder.deliver(response) { delivery in
                observe(delivery)
                beforeSending(delivery)
            }
        }
    }
}
