import CatbirdDomain
import CatbirdHTTP
import Dispatch
import Synchronization

/// Lets a journal long poll (`GET /catbird/api/requests?wait=`) or a `POST
/// /catbird/api/requests/wait` go as soon as its client hangs up (docs/protocol.md#delays: a FIN
/// counts): its journal waiter is taken back, so what it holds (the wait's pattern, its body's
/// share of the parked waits' bytes) is let go, and its 499 is logged and counted then, as a
/// delayed mock's is (tester43a-F5: both waited for the wait's end, up to 60 and 300 s later;
/// 5,000 abandoned polls held 10 MB until then).
///
/// Made once per request, before its first look; its looks register their journal waiters
/// through ``wait(for:after:timeout:wake:)``.
final class JournalWaitHangUp: Sendable {
    private let waiters: JournalWaiters
    private let state = Mutex(State())

    private struct State {
        /// The waiter registered last, while it may still be waiting.
        var ticket: JournalWaiters.Ticket?
        var clientLeft = false
    }

    /// Watches `responder`'s client (``HTTPResponder/whenClientLeaves(_:)``, registered here:
    /// once per responder).
    init(_ responder: HTTPResponder, waiters: JournalWaiters) {
        self.waiters = waiters
        responder.whenClientLeaves { [self] in
            // Off the hang-up watcher's thread: the delivery below writes a log line.
            DispatchQueue.global().async { [self] in
                let ticket = state.withLock { state in
                    state.clientLeft = true
                    defer { state.ticket = nil }
                    return state.ticket
                }
                if let ticket { waiters.cancel(ticket) }
                // Goes nowhere (its client left): its delivery is the 499 of a request to which
                // nothing was sent. A look running meanwhile finds the responder answered.
                responder.send(HTTPResponse.error(status: 503, reason: "the client hung up first"))
            }
        }
    }

    /// ``JournalWaiters/wait(for:after:timeout:wake:)``, the waiter taken back at once when the
    /// client has left meanwhile.
    func wait(for tenant: TenantID, after: Int64, timeout: Duration, wake: @escaping @Sendable (JournalWaiters.Wake) -> Void) {
        guard let ticket = waiters.wait(for: tenant, after: after, timeout: timeout, wake: wake) else { return }
        let left = state.withLock { state in
            if !state.clientLeft { state.ticket = ticket }
            return state.clientLeft
        }
        if left { waiters.cancel(ticket) }
    }
}
