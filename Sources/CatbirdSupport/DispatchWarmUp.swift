import Dispatch

/// Makes libdispatch set up what it otherwise makes on first use, while the process still has
/// file descriptors to spare: its event loop's epoll descriptor (made when a global queue's
/// first worker thread registers, or a timer is first armed). libdispatch cannot fail that
/// step gracefully: when `epoll_create1` fails with EMFILE it traps (SIGILL), and the whole
/// server dies (tester finding tester40a-F2: a freshly started server in redirect mode whose
/// first forwarded requests, parked with an upstream socket each, used up the open-file limit
/// before any global-queue work had run). Done once per process, before the server listens.
public enum DispatchWarmUp {
    private static let done: Void = {
        let ran = DispatchSemaphore(value: 0)
        // A timer (the manager queue, its event loop) whose block runs on a global queue's
        // worker thread (the worker's registration): both first uses in one step.
        DispatchQueue.global().asyncAfter(deadline: .now()) { ran.signal() }
        ran.wait()
    }()

    /// Runs the warm-up the first time it is called; later calls return at once.
    public static func ensure() {
        done
    }
}
