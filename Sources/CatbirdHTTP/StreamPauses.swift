import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Connections whose streamed answer waits for its next bytes, made on another thread
/// (``HTTPBodyStream/Step/later(_:)``): suspended from their content reader
/// (`MHD_suspend_connection`, which libmicrohttpd allows there), so they hold no worker thread,
/// and resumed exactly once: by the stream's `wake`, or at shutdown (libmicrohttpd forbids
/// stopping a daemon with suspended connections), whichever comes first under this registry's
/// lock. A `wake` after either finds no entry and does nothing, so it never touches a
/// connection libmicrohttpd may have freed.
///
/// While suspended, libmicrohttpd does not notice a client that leaves nor time the connection
/// out: the pause lasts as long as one part takes to make (a HAR export's page), and the next
/// write then finds the client gone. Rules:
/// https://www.gnu.org/software/libmicrohttpd/manual/html_node/microhttpd_002dflow.html
final class StreamPauses: Sendable {
    /// `@unchecked Sendable`: the connection pointer is only passed to `MHD_resume_connection`
    /// (callable from any thread), under the registry's lock or after its entry was taken out.
    private struct Paused: @unchecked Sendable {
        let connection: OpaquePointer
        /// The loop running the connection's daemon, woken after the resume (``WorkerLoop``).
        let loop: WorkerLoop?
    }

    private struct State {
        var stopped = false
        var nextTicket: UInt64 = 0
        var paused: [UInt64: Paused] = [:]
    }

    private let state = Mutex(State())
    /// Calls between their check of ``State/stopped`` and the end of their libmicrohttpd call
    /// outside the lock; ``resumeAll()`` waits for none to be left, so the daemon never stops
    /// under one.
    private let callsOutsideLock = Atomic<Int>(0)

    init() {}

    /// Suspends `connection` (call only from its content reader, on its worker thread) and
    /// returns what resumes it (the stream's `wake`); nil when the server is stopping: the
    /// connection is then not left suspended, and the answer ends as a failed stream's.
    func pause(_ connection: OpaquePointer) -> (@Sendable () -> Void)? {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        if state.withLock({ $0.stopped }) { return nil }
        // Suspended before it is registered, so nothing can resume it first.
        MHD_suspend_connection(connection)
        let loop = WorkerLoop.current
        let ticket: UInt64? = state.withLock { state in
            if state.stopped { return nil }
            state.nextTicket += 1
            state.paused[state.nextTicket] = Paused(connection: connection, loop: loop)
            return state.nextTicket
        }
        guard let ticket else {
            Self.resume(Paused(connection: connection, loop: loop))
            return nil
        }
        return { [self] in resume(ticket) }
    }

    /// How many connections are paused now.
    var count: Int {
        state.withLock { $0.paused.count }
    }

    /// Resumes every paused connection (their streams then end as failed ones: their next part
    /// is not made, or no longer wanted) and pauses none from now on. Call before the daemon
    /// stops.
    func resumeAll() {
        let all = state.withLock { state in
            state.stopped = true
            defer { state.paused = [:] }
            return Array(state.paused.values)
        }
        for paused in all { Self.resume(paused) }
        while callsOutsideLock.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
    }

    /// Whether ``resumeAll()`` ran.
    var isStopped: Bool {
        state.withLock { $0.stopped }
    }

    private func resume(_ ticket: UInt64) {
        callsOutsideLock.add(1, ordering: .sequentiallyConsistent)
        defer { callsOutsideLock.subtract(1, ordering: .sequentiallyConsistent) }
        // Outside the lock once its entry is out: nothing else resumes it, and resumeAll()
        // waits for this call before the daemon stops.
        if let paused = state.withLock({ $0.paused.removeValue(forKey: ticket) }) { Self.resume(paused) }
    }

    /// `MHD_resume_connection`, then a wake-up of the loop running its daemon, as a parked
    /// connection is resumed.
    private static func resume(_ paused: Paused) {
        ParkedConnections.resume(paused.connection, loop: paused.loop)
    }
}
