import Dispatch
import Synchronization

/// A held answer's release (``HTTPHeldAnswer/Release``) waited for by the thread that sends it,
/// while the server stops (``ServerCore``): the first release counts, from any thread.
final class HeldReleaseLatch: Sendable {
    private let released = Mutex<Bool?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// Records `send` (the first call only) and wakes the waiter.
    func release(_ send: Bool) {
        let first = released.withLock { value in
            guard value == nil else { return false }
            value = send
            return true
        }
        if first { signal.signal() }
    }

    /// Waits up to `timeout` for the release; returns what it picked, nil when none came.
    func wait(for timeout: Duration) -> Bool? {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        _ = signal.wait(timeout: .now() + .nanoseconds(nanoseconds))
        return released.withLock { $0 }
    }
}
