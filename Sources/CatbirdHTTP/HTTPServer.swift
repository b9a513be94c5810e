import CMicroHTTPD
import CatbirdSupport
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each with its own epoll loop,
/// keep-alive connections, request bodies streamed in and capped, responses answered later
/// (``HTTPAnswer/later(watching:_:)``, ``HTTPResponse/delay``) that hold no thread.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), handler: myHandler)
/// try server.start()
/// print(server.port)
/// server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// The settings the server was created with.
    public let configuration: Configuration
    let core: ServerCore
    private let daemon = Mutex<Daemon?>(nil)

    /// The running daemons and the retain of `core` they hold (released once they stopped).
    ///
    /// `@unchecked Sendable`: `Unmanaged` is a pointer that is only released, once, by
    /// ``stop()`` after the daemons stopped.
    private struct Daemon: @unchecked Sendable {
        let workers: WorkerDaemons
        let core: Unmanaged<ServerCore>
    }

    /// Creates a stopped server that will answer with `handler`.
    public init(configuration: Configuration, handler: some HTTPHandler) {
        self.configuration = configuration
        self.core = ServerCore(
            handler: handler, maxBodySize: configuration.maxBodySize, connectionMemory: configuration.connectionMemoryLimit,
            bodyBudget: configuration.bodyBudget, budgetHolderHeader: configuration.budgetHolderHeader,
            headTimeout: configuration.headTimeout, idleTimeoutSeconds: configuration.idleTimeoutSeconds,
            connectionCounts: configuration.connectionCounts)
    }

    /// Starts listening. Returns once the socket is bound and accepting. A server is started
    /// once: after ``stop()`` it stays stopped (its parked-connection state and connection watch
    /// have ended); create another.
    /// - Throws: ``HTTPServerError`` when the host does not resolve or the port cannot be bound.
    public func start() throws(HTTPServerError) {
        _ = LibraryPanic.installed  // a libmicrohttpd panic is logged before the abort
        DispatchWarmUp.ensure()  // libdispatch's epoll made now, not when descriptors may have run out
        let retained = Unmanaged.passRetained(core)
        let workers: WorkerDaemons
        var callbacks = WorkerDaemons.Callbacks(
            access: ServerCore.accessHandler, completed: ServerCore.requestCompleted,
            requestStarted: ServerCore.requestStarted, context: retained.toOpaque())
        callbacks.watch = core.watch
        do {
            workers = try WorkerDaemons.start(configuration, flags: Self.daemonFlags, callbacks: callbacks)
        } catch {
            retained.release()
            throw error
        }
        core.watch.start()
        daemon.withLock { $0 = Daemon(workers: workers, core: retained) }
    }

    /// The libmicrohttpd flags each worker daemon starts with (``WorkerDaemons``): polling its
    /// connections with epoll, run by a thread of ours (``WorkerLoop``; hence no
    /// `MHD_USE_INTERNAL_POLLING_THREAD`), suspend/resume (answers given later), and
    /// `MHD_USE_TURBO` (reads and writes tried before asking epoll whether the socket is ready).
    /// No `MHD_USE_ERROR_LOG`: libmicrohttpd would print a line to stderr for every client that
    /// hangs up, whatever the log level; failures that matter surface as ``HTTPServerError``.
    /// `package`: the bare-handler benchmark (Benchmarks/BareMHD) starts its daemons with them.
    package static let daemonFlags: UInt32 = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue

    /// The port the server is bound to (useful after starting on port 0), or 0 when stopped.
    public var port: UInt16 {
        daemon.withLock { $0?.workers.port ?? 0 }
    }

    /// Bytes of request bodies (and forwarded answers) held now (``Configuration/bodyBudget``;
    /// for tests and diagnostics).
    public var bufferedBodyBytes: Int { core.bodyBudget.taken }

    /// Connections the server closed since it started: idle ones to make room at the connection
    /// limit, and slow heads, stalled bodies and answers held in the body budget that their
    /// client took none of (``Configuration/headTimeout``; a stalled body also to make room).
    /// For tests and diagnostics.
    public var closedConnections: (idle: Int, slowHeads: Int) {
        (core.watch.closedIdle.load(ordering: .relaxed), core.watch.closedSlow.load(ordering: .relaxed))
    }

    /// Each worker thread's loop (for tests); empty when stopped.
    var workerLoops: [WorkerLoop] {
        daemon.withLock { $0?.workers.workers.compactMap(\.loop) ?? [] }
    }

    /// Open connections per worker thread, as the acceptor counts them (for tests); empty when
    /// stopped.
    var connectionsPerWorker: [Int] {
        daemon.withLock { $0?.workers.workers.map { $0.connections.load(ordering: .relaxed) } ?? [] }
    }

    /// Stops accepting connections (the port is free again at once), answers every parked
    /// request (delayed responses at once, deferred ones with 503, while a wait of moments,
    /// ``HTTPAnswer/soon(_:)``, gets its own answer: up to ``momentsAtShutdown``, then 503; past
    /// the first second, while such waits remain, a new request gets the 503 without reaching
    /// the handler), lets the answers just given be written (up to a second), then closes every
    /// connection and joins the worker threads. A responder used afterwards does nothing. Safe
    /// to call twice.
    public func stop() {
        guard let running = daemon.withLock({ state -> Daemon? in defer { state = nil }; return state }) else { return }
        running.workers.stopAccepting()
        core.parked.beginStopping()
        waitForWaitsOfMoments()
        core.parked.resumeAll()
        core.streamPauses.resumeAll()  // a stream waiting for its next part ends as a failed one
        // Every answer is given now; those not yet written (the ones resumed above, a wait of
        // moments that just ended) are written before the daemon closes their connections.
        waitForInFlight(upTo: ContinuousClock.now + .seconds(1))
        running.workers.stop()
        core.watch.stop()
        running.core.release()
    }

    /// Waits while waits of moments are pending, parked (``ParkedConnections/holdsWaitsOfMoments``)
    /// or answered on a copy of their socket (``ServerCore/refusalsAnsweredLater``), up to
    /// ``momentsAtShutdown``; and through the first second while requests are in flight, since
    /// one on a worker may still become such a wait. Past the first second, new requests are
    /// refused (``ServerCore/refusingRequests``): only those waits are left to end.
    private func waitForWaitsOfMoments() {
        let started = ContinuousClock.now
        while true {
            let waited = ContinuousClock.now - started
            if core.parked.holdsWaitsOfMoments || core.refusalsAnsweredLater.load(ordering: .sequentiallyConsistent) > 0 {
                guard waited < Self.momentsAtShutdown else { return }
                if waited >= .seconds(1) { core.refusingRequests.store(true, ordering: .relaxed) }
            } else if waited >= .seconds(1) || core.inFlight.load(ordering: .acquiring) == 0 {
                return
            }
            usleep(5_000)
        }
    }

    /// Waits until no request is in flight (each completed: its answer written, or its
    /// connection closed), or until `deadline`.
    private func waitForInFlight(upTo deadline: ContinuousClock.Instant) {
        while core.inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline { usleep(5_000) }
    }

    /// Requests waiting for an answer without holding a worker thread: parked connections (a
    /// delay, a long poll, a control route at work, a strict answer's journal commit) and
    /// refusals to be answered later on a copy of their socket. A moment's count; for tests
    /// and diagnostics.
    public var waitingAnswers: Int {
        core.parked.count + core.refusalsAnsweredLater.load(ordering: .relaxed)
    }

    /// How long ``stop()`` lets parked waits of moments (``HTTPAnswer/soon(_:)``) end with their
    /// own answers: 20 s, past the journal writer's longest try at a commit (three attempts
    /// of SQLite's 5-second busy timeout), after which strict answers are resolved either way.
    public static let momentsAtShutdown: Duration = .seconds(20)

    deinit {
        stop()
    }
}

#if canImport(Glibc)
import Glibc
#endif
