import CMicroHTTPD
import Dispatch
import Synchronization

/// Connections parked while a delayed response waits (`HTTPResponse.delay`).
///
/// A parked connection holds no worker thread: MHD stops polling it until
/// `MHD_resume_connection`, after which MHD calls the access handler again and the pending
/// response is queued. Every suspended connection is resumed exactly once, by its timer or by
/// ``resumeAll()`` at shutdown (MHD forbids stopping a daemon with suspended connections).
final class SuspendedConnections: Sendable {
    /// `@unchecked Sendable`: the pointer is only passed to `MHD_resume_connection`, which MHD
    /// documents as callable from any thread, and the registry below ensures it is called at
    /// most once per suspension.
    private struct Parked: @unchecked Sendable {
        let connection: OpaquePointer
    }

    private struct State {
        var stopping = false
        var nextTicket: UInt64 = 0
        var parked: [UInt64: Parked] = [:]
    }

    private let state = Mutex(State())

    /// Suspends `connection` (must be called from its access handler) and resumes it after
    /// `delay`. Returns false when the server is stopping; the caller then answers at once.
    func suspend(_ connection: OpaquePointer, for delay: Duration) -> Bool {
        let ticket: UInt64? = state.withLock { state in
            if state.stopping { return nil }
            state.nextTicket += 1
            state.parked[state.nextTicket] = Parked(connection: connection)
            // Suspended under the lock so that resumeAll() can never resume it first.
            MHD_suspend_connection(connection)
            return state.nextTicket
        }
        guard let ticket else { return false }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval(delay)) { [self] in
            resume(ticket)
        }
        return true
    }

    /// `delay` as a dispatch interval, saturating at about 68 years instead of overflowing.
    static func interval(_ delay: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = delay.components
        guard seconds < Int64(Int32.max) else { return .seconds(Int(Int32.max)) }
        return .nanoseconds(Int(max(0, seconds)) * 1_000_000_000 + Int(max(0, attoseconds) / 1_000_000_000))
    }

    /// Resumes every parked connection now and refuses further suspensions.
    func resumeAll() {
        let all = state.withLock { state in
            state.stopping = true
            defer { state.parked.removeAll() }
            return Array(state.parked.values)
        }
        for parked in all { MHD_resume_connection(parked.connection) }
    }

    private func resume(_ ticket: UInt64) {
        guard let parked = state.withLock({ $0.parked.removeValue(forKey: ticket) }) else { return }
        MHD_resume_connection(parked.connection)
    }
}
