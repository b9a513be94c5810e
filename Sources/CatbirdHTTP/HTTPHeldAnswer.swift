/// An answer known now whose release waits a moment (``HTTPAnswer/soon(_:)``): e.g. a mock's
/// response under strict durability, which leaves once its journal row is committed.
///
/// The server parks the connection (no worker waits), then calls ``start`` once, on the worker
/// thread, with the release. Whoever the answer waits for calls the release once, from any
/// thread: with true ``response`` leaves, with false ``otherwise``. Only the release crosses
/// threads: ``observe`` runs on the worker that sends, when the connection is taken back, so the
/// releasing thread (the journal writer, for a whole commit's answers) does no more than resume
/// the connection. A class: it is passed from the handler to the parked connection and back to
/// its worker, one reference rather than two responses copied at each step.
public final class HTTPHeldAnswer: Sendable {
    /// Releases a held answer: true sends ``response``, false ``otherwise``. Any thread; only
    /// the first call counts (later ones, and one after the server answered in its place at
    /// shutdown, do nothing).
    public typealias Release = @Sendable (_ send: Bool) -> Void

    /// Sent when released with true.
    public let response: HTTPResponse
    /// Sent when released with false (strict durability: the journal row could not be written).
    public let otherwise: HTTPResponse
    /// Told what goes out, before it is written, on the thread that sends it: ``response`` or
    /// ``otherwise``, or the server's 503 when it stopped before the release
    /// (``HTTPDelivery/sentInstead(_:)``). Nil: nobody asks.
    public let observe: (@Sendable (HTTPDelivery) -> Void)?
    /// Called once, on the worker thread, once the connection is parked, with the release.
    /// Must return quickly (register the release with whatever ends the wait).
    public let start: @Sendable (_ release: @escaping Release) -> Void

    /// - Parameters:
    ///   - response: sent when released with true.
    ///   - otherwise: sent when released with false.
    ///   - observe: told what goes out (``observe``).
    ///   - start: given the release once the connection is parked (``start``).
    public init(
        _ response: HTTPResponse, otherwise: HTTPResponse, observe: (@Sendable (HTTPDelivery) -> Void)? = nil,
        start: @escaping @Sendable (_ release: @escaping Release) -> Void
    ) {
        self.response = response
        self.otherwise = otherwise
        self.observe = observe
        self.start = start
    }

    /// This answer with `transform` applied to both responses it may send (at once, each once).
    func mapped(_ transform: @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPHeldAnswer {
        HTTPHeldAnswer(transform(response), otherwise: transform(otherwise), observe: observe, start: start)
    }

    /// This answer with `observer` told what goes out too, after the observers it has.
    func observed(by observer: @escaping @Sendable (HTTPDelivery) -> Void) -> HTTPHeldAnswer {
        guard let first = observe else { return HTTPHeldAnswer(response, otherwise: otherwise, observe: observer, start: start) }
        return HTTPHeldAnswer(response, otherwise: otherwise, observe: { delivery in
            first(delivery)
            observer(delivery)
        }, start: start)
    }

    /// Tells ``observe`` of `delivery` and returns the response to write (nil: nothing).
    func delivering(_ delivery: HTTPDelivery) -> HTTPResponse? {
        observe?(delivery)
        return delivery.response
    }
}
