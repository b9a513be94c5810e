import Synchronization

/// Completes one deferred request (``HTTPAnswer/later(_:)``) from any thread, exactly once.
///
/// - The first ``send(_:)`` answers; later calls are ignored and return false.
/// - Sending after the server stopped, or after the client hung up, is safe and does nothing
///   visible: at shutdown the server answers every parked request itself (503, or a delayed
///   response at once), and a client that hung up is noticed when the answer is written.
/// - A responder dropped without sending answers 500, so a forgotten request can never hold its
///   connection parked until shutdown.
public final class HTTPResponder: Sendable {
    /// Hands a response on, calling its second argument with what will go out before it is
    /// written (so a log line or a count of it is made before the client can see the answer).
    public typealias Sink = @Sendable (HTTPResponse, _ beforeSending: (HTTPDelivery) -> Void) -> Void

    private let answered = Atomic<Bool>(false)
    private let sink: Sink

    /// A responder that hands the first response sent to `sink`. The server makes the ones it
    /// passes to handlers; make your own to wrap one (e.g. to log the answer, then forward it).
    public convenience init(_ sink: @escaping @Sendable (HTTPResponse) -> Void) {
        self.init(sinkWithDelivery: { response, beforeSending in
            beforeSending(.sent(response))
            sink(response)
        })
    }

    private init(sinkWithDelivery sink: @escaping Sink) {
        self.sink = sink
    }

    /// A responder whose `sink` learns what goes out, which may differ from the response it was
    /// handed when the server answered first (``HTTPDelivery``); for wrapping another
    /// responder's ``deliver(_:beforeSending:)``.
    public static func delivering(_ sink: @escaping Sink) -> HTTPResponder {
        HTTPResponder(sinkWithDelivery: sink)
    }

    /// Answers the request with `response` (its ``HTTPResponse/delay`` still applies).
    /// - Returns: true when this call answered; false when the request had been answered before.
    ///   True does not promise delivery: the client may have gone, or the server may be stopping
    ///   (``deliver(_:beforeSending:)`` says which).
    @discardableResult
    public func send(_ response: HTTPResponse) -> Bool {
        deliver(response) { _ in }
    }

    /// Answers the request with `response`, like ``send(_:)``, and tells `beforeSending` what
    /// goes out, before it is written: `response`, or what the server sent in its place (a 503
    /// when it stopped first), or nothing (the client hung up first). Not called when the
    /// request had been answered through this responder before (false is returned).
    @discardableResult
    public func deliver(_ response: HTTPResponse, beforeSending: (HTTPDelivery) -> Void) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        sink(response, beforeSending)
        return true
    }

    /// Whether the request has been answered through this responder.
    public var hasAnswered: Bool {
        answered.load(ordering: .acquiring)
    }

    deinit {
        // Checked first: the 500 is built only for a responder dropped unanswered, not for
        // every one released after answering (each strict answer's, on the journal writer).
        guard !hasAnswered else { return }
        send(HTTPResponse.error(status: 500, reason: "the server dropped this request without answering it"))
    }
}

/// What went out for a deferred request, as its responder learns it
/// (``HTTPResponder/deliver(_:)``): what a log line or a metric of it must show.
public enum HTTPDelivery: Sendable {
    /// This response was sent (or queued to be).
    case sent(HTTPResponse)
    /// Nothing was sent: the client hung up while the request waited.
    case nothingSent
}
