import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Connections whose request is answered later (``HTTPAnswer/later(_:)`` and delayed responses).
///
/// While parked, a connection's socket is watched (``HangUpWatcher``): a client that hangs up
/// is let go at once rather than held until its answer comes.
///
/// A parked connection is suspended (`MHD_suspend_connection`): it holds no worker thread, MHD
/// stops polling it and it does not time out. It is resumed exactly once, under this registry's
/// lock: by its responder (which leaves the response in the request's context for the access
/// handler, called again after `MHD_resume_connection`), or by ``resumeAll()`` at shutdown
/// (libmicrohttpd forbids stopping a daemon with suspended connections). A responder that comes
/// after either finds no entry and does nothing, so a late answer never touches a connection
/// libmicrohttpd may have freed. Rules: https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dflow.html
final class ParkedConnections: Sendable {
    /// `@unchecked Sendable`: the connection pointer is only passed to `MHD_resume_connection`
    /// (callable from any thread), and the context is only written while the connection is
    /// suspended, i.e. while no worker touches it; both under the registry's lock.
    private struct Parked: @unchecked Sendable {
        let connection: OpaquePointer
        /// Its socket, watched for a hang-up while parked (-1 when unknown or not watched).
        let socket: Int32
        let context: RequestContext
        /// Sent at shutdown instead of waiting for the responder.
        let atShutdown: HTTPResponse
    }

    private struct State {
        var stopping = false
        var nextTicket: UInt64 = 0
        var parked: [UInt64: Parked] = [:]
    }

    private let state = Mutex(State())
    private let hangUps = HangUpWatcher()
    /// ``State/stopping``, readable without the lock.
    private let stopping = Atomic<Bool>(false)
    /// Threads between their check of ``stopping`` and the end of their `MHD_suspend_connection`
    /// or `MHD_resume_connection` call outside the lock (the lock is held for the registry only,
    /// so parks and resumes on different threads do not wait for each other's system calls).
    /// ``resumeAll()`` waits for it to drop to 0, so the daemon is never stopped under such a call.
    private let callsOutsideLock = Atomic<Int>(0)

    init() {
        hangUps.start { [weak self] ticket in self?.clientLeft(ticket) }
    }

    deinit {
        hangUps.stop()
    }

    /// The answer to a deferred request when the server stops before it is answered.
    static let stoppingResponse: HTTPResponse = {
        var response = HTTPResponse.error(status: 503, reason: "the server is stopping")
        response.headers.add(name: "Connection", value: "close")
        return response
    }()

    /// Suspends `connection` (call only from its access handler, on its worker thread) and
    /// returns the responder that resumes it, or nil when the server is stopping (answer at once).
    /// - Parameters:
    ///   - atShutdown: what to send if the server stops first.
    ///   - watchingHangUp: whether a client that hangs up meanwhile lets the connection go at
    ///     once (``HangUpWatcher``); false for waits of moments (``HTTPAnswer/soon(_:)``).
    func park(
        _ connection: OpaquePointer, _ context: RequestContext, atShutdown: HTTPResponse, watchingHangUp: Bool = true
    ) -> HTTPResponder? {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        if stopping.load(ordering: .sequentiallyConsistent) { return nil }
        // Suspended before it is registered, so nothing can resume it first.
        MHD_suspend_connection(connection)
        let socket = watchingHangUp ? catbird_mhd_connection_fd(connection) : -1
        let ticket: UInt64? = state.withLock { state in
            if state.stopping { return nil }
            state.nextTicket += 1
            state.parked[state.nextTicket] = Parked(connection: connection, socket: socket, context: context, atShutdown: atShutdown)
            context.parkedTicket = state.nextTicket
            hangUps.watch(socket, ticket: state.nextTicket)
            return state.nextTicket
        }
        guard let ticket else {
            // resumeAll() ran since the check above: answer as it does; a responder has nothing left to do.
            context.pendingResponse = atShutdown
            MHD_resume_connection(connection)
            return HTTPResponder { _ in }
        }
        return HTTPResponder { [self] response in resume(ticket, with: response) }
    }

    /// How many connections are parked now.
    var count: Int {
        state.withLock { $0.parked.count }
    }

    /// Resumes every parked connection with its shutdown answer and refuses further parking.
    func resumeAll() {
        state.withLock { state in
            state.stopping = true
            stopping.store(true, ordering: .sequentiallyConsistent)
            for parked in state.parked.values {
                hangUps.forget(parked.socket)
                parked.context.parkedTicket = nil
                parked.context.pendingResponse = parked.atShutdown
                MHD_resume_connection(parked.connection)
            }
            state.parked.removeAll()
        }
        // A park or resume past its check finishes its libmicrohttpd call before the daemon stops.
        while callsOutsideLock.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
        hangUps.stop()
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
        }
    }

    private func resume(_ ticket: UInt64, with response: HTTPResponse) {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        let connection: OpaquePointer? = state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else { return nil }
            hangUps.forget(parked.socket)
            parked.context.parkedTicket = nil
            parked.context.pendingResponse = response
            return parked.connection
        }
        // Outside the lock: its entry is gone, so nothing else resumes it, and resumeAll()
        // waits for this call before the daemon stops.
        if let connection { MHD_resume_connection(connection) }
    }

    /// The client of parked request `ticket` hung up: resumes it marked gone, so the access
    /// handler lets libmicrohttpd close it at once; its responder, when it comes, finds no entry.
    private func clientLeft(_ ticket: UInt64) {
        state.withLock { state in
            guard let parked = state.parked.removeValue(forKey: ticket) else { return }
            hangUps.forget(parked.socket)
            parked.context.parkedTicket = nil
            parked.context.clientGone = true
            MHD_resume_connection(parked.connection)
        }
    }
}
