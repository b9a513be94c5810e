import CatbirdHTTP
import Foundation
import Synchronization

/// The control calls of the quick and bulk lanes (mock updates, removals; journal pages) at
/// work when the server starts to stop, so that the answer a client gets and what was done
/// agree (tester finding tester24a-F1: a 40 MiB update was answered `503 the server is stopping`
/// by the stop, which answers every parked request so, while its pool thread went on and
/// committed it).
///
/// A call enters before its work and leaves once its answer is given to its responder (which
/// takes the parked connection back at once: the stop cannot answer it any more). ``close(timeout:)``,
/// the stop's first step, refuses every call that has not entered (it answers the 503 itself,
/// nothing done) and waits for those that have: a mock update writing its body in pieces gives
/// up before its next piece (``CatbirdDomain/MockWriteAbandoned``: the 503, nothing stored), and
/// one past its last piece commits its row and gets its 201. So the stop stays prompt: it waits
/// for one piece, or a small update's commit, not for a whole body.
final class ControlWorkAtStop: Sendable {
    private struct State {
        var closed = false
        var running = 0
    }

    private let state = Mutex(State())

    /// Enters a call: false after ``close(timeout:)`` (do nothing, answer the 503).
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running += 1
            return true
        }
    }

    /// Leaves a call entered with ``enter()``, its answer given.
    func leave() {
        state.withLock { $0.running -= 1 }
    }

    /// Refuses every call from now on, runs `abandon` (which makes the calls under way give up
    /// where they still can), then waits until no call is running or `timeout` has passed
    /// (a call waiting for a busy database; the stop then answers it 503 as before).
    func close(timeout: Duration, abandon: () -> Void) {
        state.withLock { $0.closed = true }
        abandon()
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.running }) > 0 && ContinuousClock.now < deadline { usleep(2_000) }
    }
}

extension TenantLane {
    /// Answers later with what `work` returns, run among the tenant's jobs on the pool, within
    /// `calls` (``ControlWorkAtStop``): once the stop has begun, a job that has not started
    /// answers `refusal` (the stopping server's 503) without running `work`.
    func answer(within calls: ControlWorkAtStop, refusal: HTTPResponse, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPAnswer {
        let (pool, tenant) = (pool, tenant)
        return .later(watching: .resetOnly) { responder in
            pool.run(key: tenant) {
                guard calls.enter() else {
                    responder.send(refusal)
                    return
                }
                responder.send(work())
                calls.leave()
            }
        }
    }
}
