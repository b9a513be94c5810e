import Foundation

/// How a synchronous call waits for its answer without deadlocking.
///
/// The answer is delivered on the session's delegate queue. ``Catbird/session`` uses the main
/// queue, as in Catbird 0.11, so a main thread blocked on a semaphore would never see it.
/// Therefore, on the main thread with a session that delivers on the main queue, the wait
/// runs the current run loop (which drains the main queue, on Apple platforms and on Linux
/// alike) until the semaphore is signalled. Everywhere else it simply blocks on the
/// semaphore: a background delivery runs on its own queue, and a main-queue delivery runs on
/// the main thread, which is not the one waiting.
enum BlockingWait {
    /// The longest run-loop turn between two looks at the semaphore, in seconds.
    private static let turn: TimeInterval = 0.005

    /// Returns once `semaphore` is signalled.
    ///
    /// - Parameters:
    ///   - semaphore: signalled by the completion handler.
    ///   - delegateQueue: the queue the completion handler runs on.
    static func wait(for semaphore: DispatchSemaphore, deliveredOn delegateQueue: OperationQueue) {
        guard Thread.isMainThread, deliversOnMainThread(delegateQueue) else {
            semaphore.wait()
            return
        }
        while semaphore.wait(timeout: .now()) == .timedOut {
            let ran = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: turn))
            // A run loop without sources returns at once: sleep on the semaphore instead of spinning.
            if !ran, semaphore.wait(timeout: .now() + turn) == .success { return }
        }
    }

    /// Whether operations on `queue` run on the main thread: the main operation queue, or a
    /// queue whose underlying dispatch queue is the main queue.
    private static func deliversOnMainThread(_ queue: OperationQueue) -> Bool {
        queue === OperationQueue.main || queue.underlyingQueue.map { $0.label == DispatchQueue.main.label } == true
    }
}
