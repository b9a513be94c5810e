import Dispatch
import Synchronization

/// An action run once, on a global dispatch queue, after a delay, unless ``cancel()`` comes
/// first: whichever of the two comes first wins, so it also settles which of two parties (a
/// job's start and its wait's bound) answers a request.
///
/// A cancel releases what the action captured at once; a bare `DispatchQueue.asyncAfter` block
/// holds it until its deadline (the SQL route's 5-second wait bound kept each answered query's
/// responder and reservation that long). The queued block that remains holds only this object.
/// Sendable (the action is behind a `Mutex`), where `DispatchWorkItem` and a dispatch timer
/// source are not.
public final class CancellableTimer: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>

    /// Runs `action` once `delay` has passed (zero or less: at once, on the queue).
    public init(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) { [self] in take()?() }
    }

    /// Stops the action from running, and releases it.
    /// - Returns: true when this call stopped it; false when it had already started (or been
    ///   cancelled).
    @discardableResult
    public func cancel() -> Bool {
        take() != nil
    }

    /// The action, taken out: only the first caller gets it.
    private func take() -> (@Sendable () -> Void)? {
        action.withLock { action in
            defer { action = nil }
            return action
        }
    }
}
