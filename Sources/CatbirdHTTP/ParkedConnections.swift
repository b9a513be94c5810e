import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Connections whose request is answered later (``HTTPAnswer/later(watching:_:)`` and delayed responses).
///
/// While parked, a connection's socket is watched (``HangUpWatcher``): a client that hangs up
/// is let go at once rather than held until its answer comes (what counts as hanging up:
/// ``HTTPHangUpWatch``).
///
/// A parked connection is suspended (`MHD_suspend_connection`): it holds no worker thread, MHD
/// stops polling it and it does not time out. It is resumed exactly once, under this registry's
/// lock: by its responder (which leaves the response in the request's context for the access
/// handler, called again after `MHD_resume_connection`), or at shutdown (libmicrohttpd forbids
/// stopping a daemon with suspended connections). A responder that comes after either finds no
/// entry and does nothing, so a late answer never touches a connection libmicrohttpd may have
/// freed. Rules: https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dflow.html
///
/// Shutdown has two steps. ``beginStopping()`` answers at once what waits on something that may
/// take long (a delay, a poll, the control pool) and refuses such parks from then on, but lets
/// a wait of moments (``HTTPAnswer/soon(_:)``, e.g. strict durability's wait for a journal
/// commit that is already queued) end with its real answer, and still holds new ones: the
/// answer the journal records is then the one the client gets. ``resumeAll()`` then answers
/// whatever is left with its shutdown answer and refuses every park.
final class ParkedConnections: Sendable {
    /// `@unchecked Sendable`: the connection pointer is only passed to `MHD_resume_connection`
    /// (callable from any thread), and the context is only written while the connection is
    /// suspended, i.e. while no worker touches it; both under the registry's lock.
    private struct Parked: @unchecked Sendable {
        let connection: OpaquePointer
        /// The loop running the connection's daemon, woken after the resume (``WorkerLoop``).
        let loop: WorkerLoop?
        /// Its socket, watched for a hang-up while parked (-1 when unknown or not watched).
        let socket: Int32
        let context: RequestContext
        /// Sent at shutdown instead of waiting for the responder; nil for a wait of moments,
        /// which ``beginStopping()`` leaves to its release (``resumeAll()`` then sends
        /// ``ParkedConnections/stoppingResponse``).
        let atShutdown: HTTPResponse?
        /// Called when its client hangs up (``HTTPResponder/whenClientLeaves(_:)``), outside the lock.
        var whenLeft: (@Sendable () -> Void)?
        /// A deferred request whose answer became a wait of moments (``awaitMoments(_:)``):
        /// ``beginStopping()`` leaves it to its responder, as it does a held answer.
        var momentary = false
        /// A held answer's wait (``hold(_:_:_:)``): its worker tells what went out when it takes
        /// the connection back, so nothing is kept for a late release in ``State/answeredInstead``.
        var holds: Bool { atShutdown == nil }
        /// Whether shutdown lets it end with its own answer (up to ``resumeAll()``).
        var waitsMoments: Bool { atShutdown == nil || momentary }
    }

    /// How far shutdown has gone.
    private enum Phase: Int {
        /// Every answer may be parked.
        case running = 0
        /// ``beginStopping()`` ran: only waits of moments are parked.
        case stopping = 1
        /// ``resumeAll()`` ran: nothing is parked.
        case stopped = 2
    }

    private struct State {
        var phase = Phase.running
        var nextTicket: UInt64 = 0
        var parked: [UInt64: Parked] = [:]
        /// Requests answered without their responder (at shutdown: what was sent; a client that
        /// hung up: nil), until the responder is used and learns it (``HTTPResponder/deliver(_:)``).
        /// Every responder is used once, if only when dropped, so each entry is taken once.
        var answeredInstead: [UInt64: HTTPResponse?] = [:]
    }

    private let state = Mutex(State())
    private let hangUps = HangUpWatcher()
    /// ``State/phase``'s raw value, readable without the lock.
    private let phase = Atomic<Int>(Phase.running.rawValue)
    /// Threads between their check of ``stopping`` and the end of their `MHD_suspend_connection`
    /// or `MHD_resume_connection` call outside the lock (the lock is held for the registry only,
    /// so parks and resumes on different threads do not wait for each other's system calls).
    /// ``resumeAll()`` waits for it to drop to 0, so the daemon is never stopped under such a call.
    private let callsOutsideLock = Atomic<Int>(0)

    /// - Parameters:
    ///   - stoppingResponse: ``stoppingResponse``.
    ///   - idleTimeoutSeconds: the daemons' idle timeout (`MHD_OPTION_CONNECTION_TIMEOUT`, 0:
    ///     none), which a parked connection's own timeout is set apart from (``parkingTimeoutSeconds``).
    init(stoppingResponse: HTTPResponse, idleTimeoutSeconds: Int) {
        self.stoppingResponse = stoppingResponse
        self.idleTimeoutSeconds = UInt32(clamping: idleTimeoutSeconds)
        parkingTimeoutSeconds = idleTimeoutSeconds > 0 ? UInt32(clamping: idleTimeoutSeconds + 1) : 365 * 24 * 3600
        hangUps.start { [weak self] ticket in self?.clientLeft(ticket) }
    }

    deinit {
        hangUps.stop()
    }

    /// The daemons' idle timeout in seconds (0: none), given back to a connection taken back.
    private let idleTimeoutSeconds: UInt32
    /// A parked connection's own idle timeout in seconds: any value other than the daemons'
    /// (their idle timeout and a second, or a year when they have none), so that libmicrohttpd
    /// keeps the connection on its list of connections with their own timeouts. Why:
    /// libmicrohttpd 0.9.75 takes a resumed connection back marked ready to read and to write,
    /// and its next round reads from the socket first, unless that connection's idle handling
    /// (which calls the access handler, which queues the answer, and makes the connection one
    /// that writes) ran before. Each round runs the idle handling of every connection with its
    /// own timeout, but of the others only of the one idle longest (daemon.c, `MHD_epoll`: the
    /// default-timeout list is sorted and walked from its oldest until one has not timed out).
    /// So with another connection open on its worker, a resumed connection read first: a
    /// half-closed client's end of stream, there since it sent its request, made libmicrohttpd
    /// close the connection with nothing sent (the answer of a control request, a long poll, a
    /// delay or a held answer lost; docs/protocol.md#delays). Set before the connection is
    /// suspended, given back (``takenBack(_:_:)``) when its worker takes it back.
    private let parkingTimeoutSeconds: UInt32

    /// The answer to a deferred request when the server stops before it is answered, and to a
    /// request that arrives while it stops: the handler's (``HTTPHandler/stoppingResponse``),
    /// asked once when the server is created.
    let stoppingResponse: HTTPResponse

    /// Suspends `connection` (call only from its access handler, on its worker thread) and
    /// returns the responder that resumes it, or nil when the server is stopping (answer at once).
    /// Its socket is watched for a hang-up meanwhile.
    /// - Parameters:
    ///   - atShutdown: what to send if the server stops first.
    ///   - watching: what counts as the client gone meanwhile.
    func park(
        _ connection: OpaquePointer, _ context: RequestContext, atShutdown: HTTPResponse, watching: HTTPHangUpWatch
    ) -> HTTPResponder? {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        guard let ticket = suspend(connection, context, atShutdown: atShutdown, watching: watching) else { return nil }
        guard ticket != 0 else {
            // Shutdown got here since the check: answered as it does; a responder has nothing left to do.
            return HTTPResponder.delivering(waiting: { false }, moments: { false }) { _, beforeSending in
                beforeSending(.sentInstead(atShutdown))
            }
        }
        return HTTPResponder.delivering(
            waiting: { [self] in isParked(ticket) }, leaving: { [self] action in whenClientLeaves(ticket, action) },
            moments: { [self] in awaitMoments(ticket) }
        ) { [self] response, beforeSending in
            resume(ticket, with: response, beforeSending: beforeSending)
        }
    }

    /// Suspends `connection` (call only from its access handler, on its worker thread) until
    /// `held`'s release, and calls its start with that release; false when the server has
    /// stopped (answer at once). A wait of moments: shutdown lets it end with its own answer,
    /// and it is parked until ``resumeAll()``; its socket is not watched for a hang-up. The
    /// worker taken back sends what the release picked (``RequestContext/heldReleased``), or
    /// the server's answer when it came first (``RequestContext/pendingResponse``), and tells
    /// the answer's observer: the releasing thread only resumes the connection.
    func hold(_ connection: OpaquePointer, _ context: RequestContext, _ held: HTTPHeldAnswer) -> Bool {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        context.held = held  // the worker's own field until the connection is suspended
        guard let ticket = suspend(connection, context, atShutdown: nil, watching: nil) else {
            context.held = nil
            return false
        }
        // 0: shutdown got here since the check, and resumed it with its answer.
        if ticket != 0 { held.start { [self] send in release(ticket, send: send) } }
        return true
    }

    /// Suspends and registers `connection` (its socket watched as `watching` says; nil for a
    /// wait of moments, not watched) and returns its ticket; nil when the server is stopping beyond what the park
    /// allows (nothing done); 0 when shutdown got past its check meanwhile: it is resumed with
    /// its shutdown answer at once.
    private func suspend(
        _ connection: OpaquePointer, _ context: RequestContext, atShutdown: HTTPResponse?, watching: HTTPHangUpWatch?
    ) -> UInt64? {
        let allowed: Phase = atShutdown == nil ? .stopping : .running
        if phase.load(ordering: .sequentiallyConsistent) > allowed.rawValue { return nil }
        // Its own timeout before it is suspended (libmicrohttpd moves a connection between its
        // timeout lists only while it is not), so it comes back on the list whose connections
        // are each handled every round (``parkingTimeoutSeconds``).
        _ = catbird_mhd_set_connection_timeout(connection, parkingTimeoutSeconds)
        context.parkedTimeout = true
        // Suspended before it is registered, so nothing can resume it first.
        MHD_suspend_connection(connection)
        let socket = watching != nil ? catbird_mhd_connection_fd(connection) : -1
        let ticket: UInt64? = state.withLock { state in
            if state.phase.rawValue > allowed.rawValue { return nil }
            state.nextTicket += 1
            state.parked[state.nextTicket] = Parked(
                connection: connection, loop: WorkerLoop.current, socket: socket, context: context, atShutdown: atShutdown)
            context.parkedTicket = state.nextTicket
            if let watching {
                hangUps.watch(socket, ticket: state.nextTicket, endOfStream: .init(watching, version: context.version))
            }
            return state.nextTicket
        }
        guard let ticket else {
            context.pendingResponse = atShutdown ?? stoppingResponse
            Self.resume(connection, loop: WorkerLoop.current)
            return 0
        }
        return ticket
    }

    /// A parked connection taken back by its worker (the access handler's first call after the
    /// resume, on that worker, from libmicrohttpd's idle handling: the connection is not
    /// suspended): gives it back the daemons' idle timeout (``parkingTimeoutSeconds``).
    func takenBack(_ connection: OpaquePointer, _ context: RequestContext) {
        context.parkedTimeout = false
        _ = catbird_mhd_set_connection_timeout(connection, idleTimeoutSeconds)
    }

    /// Whether request `ticket` is still parked: not yet answered, by its responder or by
    /// shutdown, and its client has not hung up (``HTTPResponder/isWaiting``).
    private func isParked(_ ticket: UInt64) -> Bool {
        state.withLock { $0.parked[ticket] != nil }
    }

    /// Makes parked request `ticket`'s wait a wait of moments (``HTTPResponder/awaitMoments()``):
    /// its answer is due within moments, so ``beginStopping()`` leaves it to its responder and
    /// shutdown waits for it (``holdsWaitsOfMoments``) up to ``resumeAll()``. False when it is
    /// no longer parked (answered, its client gone, or shutdown answered it) or shutdown began.
    private func awaitMoments(_ ticket: UInt64) -> Bool {
        state.withLock { state in
            guard state.phase == .running, state.parked[ticket] != nil else { return false }
            state.parked[ticket]?.momentary = true
            return true
        }
    }

    /// How many connections are parked now.
    var count: Int {
        state.withLock { $0.parked.count }
    }

    /// Shutdown's first step: resumes every parked connection that has a shutdown answer with
    /// it, and from now on parks only waits of moments (those without one), which are left to
    /// their responders.
    func beginStopping() {
        resume(upTo: .stopping)
    }

    /// Whether ``beginStopping()`` ran: a wait of moments that comes now is not parked but
    /// waited for on its worker (``ServerCore``), so ``resumeAll()`` cannot answer it in its place.
    var isStopping: Bool {
        phase.load(ordering: .sequentiallyConsistent) >= Phase.stopping.rawValue
    }

    /// Whether a wait of moments is parked (shutdown waits for it between ``beginStopping()``
    /// and ``resumeAll()``).
    var holdsWaitsOfMoments: Bool {
        state.withLock { $0.parked.values.contains(where: \.waitsMoments) }
    }

    /// Shutdown's last step: resumes every parked connection with its shutdown answer
    /// (``stoppingResponse`` for a wait of moments) and refuses further parking.
    /// - Returns: how many connections it resumed.
    @discardableResult
    func resumeAll() -> Int {
        let resumed = resume(upTo: .stopped)
        // A park or resume past its check finishes its libmicrohttpd call before the daemon stops.
        while callsOutsideLock.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
        hangUps.stop()
        return resumed
    }

    /// Moves to `next` and resumes the parked connections it no longer lets wait.
    @discardableResult
    private func resume(upTo next: Phase) -> Int {
        state.withLock { state in
            guard next.rawValue > state.phase.rawValue else { return 0 }
            state.phase = next
            phase.store(next.rawValue, ordering: .sequentiallyConsistent)
            var resumed = 0
            for (ticket, parked) in state.parked where !parked.waitsMoments || next == .stopped {
                state.parked[ticket] = nil
                hangUps.forget(parked.socket)
                parked.context.parkedTicket = nil
                parked.context.pendingResponse = parked.atShutdown ?? stoppingResponse
                if !parked.holds { state.answeredInstead[ticket] = parked.context.pendingResponse }
                Self.resume(parked.connection, loop: parked.loop)
                resumed += 1
            }
            return resumed
        }
    }

    /// Drops the entry of a request libmicrohttpd has finished with (its connection closed while
    /// parked), so a late responder cannot reach the freed connection. Called from the completion
    /// callback on the connection's worker thread; takes no lock when the request was never
    /// parked or was resumed (every resume clears the context's ticket).
    func forget(_ context: RequestContext) {
        guard let ticket = context.parkedTicket else { return }
        state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else { return }
            hangUps.forget(parked.socket)
            if !parked.holds { state.answeredInstead[ticket] = .some(nil) }
        }
    }

    /// Resumes parked request `ticket` with `response`, after telling `beforeSending` what goes
    /// out: `response`, or what was sent in its place when shutdown or a hang-up came first.
    private func resume(_ ticket: UInt64, with response: HTTPResponse, beforeSending: (HTTPDelivery) -> Void) {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        let (parked, instead): (Parked?, HTTPResponse??) = state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else {
                return (nil, state.answeredInstead.removeValue(forKey: ticket))
            }
            hangUps.forget(parked.socket)
            parked.context.parkedTicket = nil
            parked.context.pendingResponse = response
            return (parked, nil)
        }
        // Outside the lock: its entry is gone, so nothing else resumes it, and resumeAll()
        // waits for this call before the daemon stops.
        guard let parked else {
            guard case let .some(.some(sent)) = instead else { return beforeSending(.nothingSent) }
            return beforeSending(.sentInstead(sent))
        }
        beforeSending(.sent(response))
        Self.resume(parked.connection, loop: parked.loop)
    }

    /// Releases held request `ticket` (``hold(_:_:_:)``): `send` picks what its worker sends.
    /// Does nothing when shutdown answered it first. Outside the lock: only the resume.
    private func release(_ ticket: UInt64, send: Bool) {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        let parked: Parked? = state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else { return nil }
            parked.context.parkedTicket = nil
            parked.context.heldReleased = send
            return parked
        }
        // Outside the lock: its entry is gone, so nothing else resumes it, and resumeAll()
        // waits for this call before the daemon stops.
        if let parked { Self.resume(parked.connection, loop: parked.loop) }
    }

    /// The client of parked request `ticket` hung up: resumes it marked gone, so the access
    /// handler lets libmicrohttpd close it at once; its responder, when it comes, finds no entry.
    /// Then calls what its responder registered for it (``whenClientLeaves(_:_:)``).
    private func clientLeft(_ ticket: UInt64) {
        let whenLeft: (@Sendable () -> Void)? = state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else { return nil }
            hangUps.forget(parked.socket)
            state.answeredInstead[ticket] = .some(nil)
            parked.context.parkedTicket = nil
            parked.context.clientGone = true
            Self.resume(parked.connection, loop: parked.loop)
            return parked.whenLeft
        }
        whenLeft?()
    }

    /// Registers `action` for parked request `ticket`'s hang-up (``clientLeft(_:)``); calls it
    /// at once when its client has hung up already (its responder not yet used); nothing when
    /// it was answered otherwise.
    private func whenClientLeaves(_ ticket: UInt64, _ action: @escaping @Sendable () -> Void) {
        let leftAlready: Bool = state.withLock { state in
            if state.parked[ticket] != nil {
                state.parked[ticket]?.whenLeft = action
                return false
            }
            if case .some(.none) = state.answeredInstead[ticket] { return true }
            return false
        }
        if leftAlready { action() }
    }

    /// `MHD_resume_connection`, then a wake-up of the loop running its daemon, which takes the
    /// connection back on its next round (``WorkerLoop``: one wake-up for many resumes). Also
    /// ``StreamPauses``'.
    static func resume(_ connection: OpaquePointer, loop: WorkerLoop?) {
        MHD_resume_connection(connection)
        loop?.wake()
    }
}
