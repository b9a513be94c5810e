import CatbirdSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP, received synchronously with `sigwait` on a thread of their own
/// (``watch()``); SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2 and SIGALRM ignored.
///
/// SIGHUP takes the same graceful path as SIGTERM: it is what a closed terminal or SSH session
/// sends, and its default action killed the server with acknowledged requests not yet in the
/// journal (try6a F16). SIGPIPE is ignored process-wide: a closed stderr pipe (`catbird … | head`)
/// killed the server at its next log line (exit 141, try6a F15); writes to a closed pipe or socket
/// now fail with EPIPE instead, which ``Logger`` drops. SIGXFSZ is ignored too: a file-size
/// limit (`ulimit -f`, systemd's `LimitFSIZE=`, `docker run --ulimit fsize=`) reached by the
/// database or its `-wal` killed the server at that write, with answered requests not yet in
/// the journal and nothing logged (tester finding T18B-F1); ignored, the write fails with EFBIG,
/// which SQLite reports as a full disk or a write error, and the server degrades as for a full
/// disk (README.md#storage-faults). SIGUSR1, SIGUSR2 and SIGALRM are ignored as well: log tools
/// send SIGUSR1 to have a daemon reopen its log file (Catbird logs to stderr: nothing to reopen),
/// and the default action of the three killed the server at once, answered requests not yet
/// journaled lost, no line logged (tester finding tester21b-F8). Nothing in the process uses them
/// (libcurl's DNS timeouts would use SIGALRM; CURLOPT_NOSIGNAL is set).
///
/// The three are blocked in the main thread before any other thread starts, so every thread the
/// process creates later inherits the block and no thread can swallow the signal; the watch's
/// thread then takes it with `sigwait`. (A Dispatch signal source is not reliable here: on
/// Linux a signal left pending on one of Dispatch's worker threads never reaches it.)
enum TerminationSignals {
    /// Ignores SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2 and SIGALRM and blocks SIGINT, SIGTERM and
    /// SIGHUP for this thread and the threads it creates from now on. Call first thing in `main`.
    static func block() {
        for ignored in [SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM] { signal(ignored, SIG_IGN) }
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Starts the thread that takes SIGINT, SIGTERM and SIGHUP with `sigwait` from now on (it
    /// inherits the block), so that a signal during start-up is seen while start-up runs
    /// (``TerminationWatch/received``), not only once the server listens: `--mocks-dir /` held a
    /// SIGTERM for the 11 s of its start-up sweep (session 14's leftover). Call after ``block()``,
    /// once.
    static func watch() -> TerminationWatch {
        let watch = TerminationWatch()
        Thread.named("catbird-signals") {
            var set = signals
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            watch.note(received)
        }.start()
        return watch
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

/// The first termination signal the process received (``TerminationSignals/watch()``): asked
/// during start-up (``received``), waited for once the server listens (``wait()``).
final class TerminationWatch: Sendable {
    /// The signal's number; 0 while none came.
    private let number = Atomic<Int32>(0)
    private let arrived = DispatchSemaphore(value: 0)

    /// The signal received, or nil while none came.
    var received: Int32? {
        let received = number.load(ordering: .acquiring)
        return received == 0 ? nil : received
    }

    /// Waits for SIGINT, SIGTERM or SIGHUP and returns its number.
    func wait() -> Int32 {
        arrived.wait()
        return number.load(ordering: .acquiring)
    }

    fileprivate func note(_ signal: Int32) {
        number.store(signal, ordering: .releasing)
        arrived.signal()
    }
}
