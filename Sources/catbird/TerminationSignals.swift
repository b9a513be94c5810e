import CatbirdSupport
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU and SIGPWR, received synchronously with
/// `sigwait` on a thread of their own (``watch()``); SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2,
/// SIGALRM, SIGVTALRM, SIGPROF, SIGIO and SIGSTKFLT ignored: no signal whose default action
/// ends the process does so without the graceful stop, but SIGKILL and the program-error
/// signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS).
///
/// SIGXCPU is what a CPU-time limit sends at its soft limit (`prlimit --cpu`, `ulimit -t`,
/// systemd's `LimitCPU=`), a warning before the hard limit's SIGKILL; SIGQUIT is Ctrl-\ in a
/// terminal (nginx's graceful stop); SIGPWR a UPS daemon's. Their default action killed the
/// server at once, answered requests not yet journaled lost (tester finding tester28b-F2: 609 of
/// 15,747 under load for SIGXCPU), as did that of SIGVTALRM, SIGPROF, SIGIO and SIGSTKFLT, which
/// nothing in the process uses. The graceful ones are reset to their default action before they
/// are blocked: a shell starts a background job (`catbird … &`) with SIGINT and SIGQUIT ignored,
/// which would discard them.
///
/// SIGHUP takes the same graceful path as SIGTERM: it is what a closed terminal or SSH session
/// sends, and its default action killed the server with acknowledged requests not yet in the
/// journal (try6a F16); unless it was ignored when the process started (`nohup`), which is kept
/// (``Taken/hangUpIgnored``). SIGPIPE is ignored process-wide: a closed stderr pipe (`catbird … | head`)
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
/// The graceful ones are blocked in the main thread before any other thread starts, so every thread the
/// process creates later inherits the block and no thread can swallow the signal; the watch's
/// thread then takes it with `sigwait`. (A Dispatch signal source is not reliable here: on
/// Linux a signal left pending on one of Dispatch's worker threads never reaches it.)
enum TerminationSignals {
    /// The signals that stop the server gracefully, as SIGTERM does.
    static let graceful = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGPWR]

    /// The signals ignored: their default action would end the process, and nothing in it uses them.
    static let ignored = [SIGPIPE, SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGSTKFLT]

    /// The graceful signals this process takes: ``graceful``, less SIGHUP when it was ignored
    /// when the process started (``hangUpIgnored``).
    struct Taken: Sendable {
        /// SIGHUP was ignored at start (`nohup`, `trap '' HUP`) and stays so: an operator who
        /// started the server with `nohup … &` asked it to outlive the terminal or SSH session
        /// (tester finding tester42b-F6: the server put SIGHUP back on its graceful stop, and a
        /// dropped SSH connection stopped the fleet's shared server).
        let hangUpIgnored: Bool

        fileprivate var set: sigset_t {
            var set = sigset_t()
            sigemptyset(&set)
            for taken in graceful where !(hangUpIgnored && taken == SIGHUP) { sigaddset(&set, taken) }
            return set
        }
    }

    /// Ignores ``ignored`` and blocks ``graceful`` (their action reset to the default first,
    /// but a SIGHUP ignored at start, ``Taken/hangUpIgnored``, stays ignored) for this thread
    /// and the threads it creates from now on. Call first thing in `main`.
    @discardableResult
    static func block() -> Taken {
        for ignored in ignored { signal(ignored, SIG_IGN) }
        var hangUpIgnored = false
        for taken in graceful {
            let previous = signal(taken, SIG_DFL)
            // Function pointers compared by address (they are not Equatable).
            if taken == SIGHUP, let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(SIGHUP, SIG_IGN)
                hangUpIgnored = true
            }
        }
        let taken = Taken(hangUpIgnored: hangUpIgnored)
        var set = taken.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
        return taken
    }

    /// Starts the thread that takes the `taken` signals with `sigwait` from now on (it inherits
    /// the block), so that a signal during start-up is seen while start-up runs
    /// (``TerminationWatch/received``), not only once the server listens: `--mocks-dir /` held a
    /// SIGTERM for the 11 s of its start-up sweep (session 14's leftover). Call after ``block()``,
    /// once, with what it returned.
    static func watch(_ taken: Taken) -> TerminationWatch {
        let watch = TerminationWatch()
        Thread.named("catbird-signals") {
            var set = taken.set
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            watch.note(received)
        }.start()
        return watch
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

    /// Waits for one of the ``TerminationSignals/graceful`` signals and returns its number.
    func wait() -> Int32 {
        arrived.wait()
        return number.load(ordering: .acquiring)
    }

    fileprivate func note(_ signal: Int32) {
        number.store(signal, ordering: .releasing)
        arrived.signal()
    }
}
