#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM, received synchronously with `sigwait`.
///
/// Both are blocked in the main thread before any other thread starts, so every thread the
/// process creates later inherits the block and no thread can swallow the signal; the main
/// thread then takes it with `sigwait`. (A Dispatch signal source is not reliable here: on
/// Linux a signal left pending on one of Dispatch's worker threads never reaches it.)
enum TerminationSignals {
    /// Blocks SIGINT and SIGTERM for this thread and the threads it creates from now on.
    /// Call first thing in `main`.
    static func block() {
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for SIGINT or SIGTERM and returns its number.
    static func wait() -> Int32 {
        var set = signals
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
