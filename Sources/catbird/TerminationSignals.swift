#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP, received synchronously with `sigwait`; SIGPIPE ignored.
///
/// SIGHUP takes the same graceful path as SIGTERM: it is what a closed terminal or SSH session
/// sends, and its default action killed the server with acknowledged requests not yet in the
/// journal (try6a F16). SIGPIPE is ignored process-wide: a closed stderr pipe (`catbird … | head`)
/// killed the server at its next log line (exit 141, try6a F15); writes to a closed pipe or socket
/// now fail with EPIPE instead, which ``Logger`` drops.
///
/// The three are blocked in the main thread before any other thread starts, so every thread the
/// process creates later inherits the block and no thread can swallow the signal; the main
/// thread then takes it with `sigwait`. (A Dispatch signal source is not reliable here: on
/// Linux a signal left pending on one of Dispatch's worker threads never reaches it.)
enum TerminationSignals {
    /// Ignores SIGPIPE and blocks SIGINT, SIGTERM and SIGHUP for this thread and the threads it
    /// creates from now on. Call first thing in `main`.
    static func block() {
        signal(SIGPIPE, SIG_IGN)
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for SIGINT, SIGTERM or SIGHUP and returns its number.
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
        sigaddset(&set, SIGHUP)
        return set
    }
}
