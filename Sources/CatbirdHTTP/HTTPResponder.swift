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
    private let answered = Atomic<Bool>(false)
    private let sink: @Sendable (HTTPResponse) -> Void

    /// A responder that hands the first response sent to `sink`. The server makes the ones it
    /// passes to handlers; make your own to wrap one (e.g. to log the answer, then forward it).
    public init(_ sink: @escaping @Sendable (HTTPResponse) -> Void) {
        self.sink = sink
    }

    /// Answers the request with `response` (its ``HTTPResponse/delay`` still applies).
    /// - Returns: true when this call answered; false when the request had been answered before.
    ///   True does not promise delivery: the client may have gone, or the server may be stopping.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Bool {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        sink(response)
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
