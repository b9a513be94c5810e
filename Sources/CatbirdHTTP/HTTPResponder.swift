import Synchronization

/// Completes one deferred request (``HTTPAnswer/later(watching:_:)``) from any thread, exactly once.
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
    /// Whether whoever answers in the responder's place (the server at shutdown, a client's
    /// hang-up) has not done so yet.
    private let unansweredElsewhere: @Sendable () -> Bool

    /// A responder that hands the first response sent to `sink`. The server makes the ones it
    /// passes to handlers; make your own to wrap one (e.g. to log the answer, then forward it).
    public convenience init(_ sink: @escaping @Sendable (HTTPResponse) -> Void) {
        self.init(sinkWithDelivery: { response, beforeSending in
            beforeSending(.sent(response))
            sink(response)
        }, waiting: { true })
    }

    /// Registers what ``whenClientLeaves(_:)`` is given with whoever parks the request; nil: a
    /// responder nobody watches for a hang-up (its action is never called).
    private let leaving: (@Sendable (@escaping @Sendable () -> Void) -> Void)?

    /// Makes the wait a wait of moments with whoever parks the request (``awaitMoments()``);
    /// nil: a responder nobody parks (``isWaiting`` answers for it).
    private let moments: (@Sendable () -> Bool)?

    private init(
        sinkWithDelivery sink: @escaping Sink, waiting: @escaping @Sendable () -> Bool,
        leaving: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil, moments: (@Sendable () -> Bool)? = nil
    ) {
        self.sink = sink
        unansweredElsewhere = waiting
        self.leaving = leaving
        self.moments = moments
    }

    /// A responder whose `sink` learns what goes out, which may differ from the response it was
    /// handed when the server answered first (``HTTPDelivery``); for wrapping another
    /// responder's ``deliver(_:beforeSending:)``.
    /// - Parameter waiting: whether the request is still waiting for this responder's answer
    ///   (``isWaiting``): false once the server or the client ended it otherwise; a wrapper
    ///   passes the wrapped responder's ``isWaiting``.
    ///   - leaving: registers an action for the client's hang-up (``whenClientLeaves(_:)``); a
    ///     wrapper passes the wrapped responder's ``whenClientLeaves(_:)``; nil: never called.
    ///   - moments: makes the wait a wait of moments (``awaitMoments()``); a wrapper passes the
    ///     wrapped responder's ``awaitMoments()``; nil: `waiting` answers for it.
    public static func delivering(
        waiting: @escaping @Sendable () -> Bool = { true }, leaving: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil,
        moments: (@Sendable () -> Bool)? = nil, _ sink: @escaping Sink
    ) -> HTTPResponder {
        HTTPResponder(sinkWithDelivery: sink, waiting: waiting, leaving: leaving, moments: moments)
    }

    /// Tells whoever parks the request that its answer is due within moments (strict
    /// durability's wait for a journal commit already queued: ``HTTPAnswer/soon(_:)``'s kind of
    /// wait), so a server that begins to stop lets it end with its own answer, up to
    /// ``HTTPServer/momentsAtShutdown``, instead of sending its 503 in its place at once: the
    /// answer the journal records is then the one the client gets (tester finding tester55a-F1:
    /// the 503 went out while the committed row said the mock's 201 and its hit stood). Call it
    /// once the answer's entry is queued, before waiting for the commit; again does no harm.
    /// - Returns: false when the request no longer waits (answered, its client gone) or the
    ///   server began to stop first: ``deliver(_:beforeSending:)`` then tells what went out
    ///   instead. A responder nobody parks answers ``isWaiting``.
    @discardableResult
    public func awaitMoments() -> Bool {
        guard let moments else { return isWaiting }
        return !hasAnswered && moments()
    }

    /// Calls `action` once when the client hangs up while its request waits parked for this
    /// responder (``HTTPAnswer/later(watching:_:)``; as its ``HTTPHangUpWatch`` counts a hang-up),
    /// at once when it already has: so that what the answer holds (a mock's use, a queued
    /// entry) can be given back then, not only when the answer is ready (tester25a-F11). Never
    /// called once the request is answered (by this responder, or by the server at shutdown),
    /// nor for a request not parked. Called on the server's hang-up watcher thread (or the
    /// caller's): `action` must return quickly and not block. The responder must still be used
    /// (or dropped): its delivery is then ``HTTPDelivery/nothingSent``. Register once.
    public func whenClientLeaves(_ action: @escaping @Sendable () -> Void) {
        leaving?(action)
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

    /// Whether an answer sent now could still reach the client: not answered through this
    /// responder, nor by the server in its place (a 503 at shutdown), nor given up by a client
    /// that hung up while it waited. For work that must not start, or count, for a request
    /// nobody waits for any more (docs/tenancy.md#slow-regular-expressions); a moment later it
    /// may be false, so what went out is still told by ``deliver(_:beforeSending:)``.
    public var isWaiting: Bool {
        !hasAnswered && unansweredElsewhere()
    }

    deinit {
        // Checked first: the 500 is built only for a responder dropped unanswered, not for
        // every one released after answering.
        guard !hasAnswered else { return }
        send(HTTPResponse.error(status: 500, reason: "the server dropped this request without answering it"))
    }
}

/// What went out for a deferred request, as its responder learns it
/// (``HTTPResponder/deliver(_:)``): what a log line or a metric of it must show.
public enum HTTPDelivery: Sendable {
    /// This response was sent (or queued to be).
    case sent(HTTPResponse)
    /// The server had answered the request itself before this responder was used, with this
    /// response (a 503 when it stopped first); the responder's response was not sent.
    case sentInstead(HTTPResponse)
    /// Nothing was sent: the client hung up while the request waited.
    case nothingSent

    /// The response that went out (the responder's or the server's), nil when none did.
    public var response: HTTPResponse? {
        switch self {
        case let .sent(response), let .sentInstead(response): response
        case .nothingSent: nil
        }
    }
}
