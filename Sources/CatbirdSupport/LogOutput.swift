#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Where ``Logger`` writes: standard error, never blocking. A reader that stops reading (a
/// stopped `tee`, a paused collector, `| less`) fills a pipe's 64 KiB; a blocking write then
/// held every worker that logs, health included, and SIGTERM too (tester finding T19A-F6: the
/// server froze after about 400 requests at `--log-level info`). A line that cannot be written
/// at once, or whose write fails (a file at the file-size limit), is dropped and counted
/// (``droppedLines``, `catbird_log_lines_dropped_total`); the next line written says how many
/// were dropped, and why.
///
/// How the write avoids blocking depends on what standard error is, read once:
/// - a socket (systemd's journal stream): `send` with `MSG_DONTWAIT`, per call;
/// - a pipe or FIFO: a second open file description of it (`/proc/self/fd/2`) made
///   non-blocking, so the flag never reaches the description the parent shares;
/// - anything else (a file, a terminal): written as it is (a file never fills; a terminal
///   stopped with Ctrl-S can still hold a write).
enum LogOutput {
    private enum Kind {
        case socket
        case descriptor(Int32)
    }

    private static let kind: Kind = {
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return .descriptor(STDERR_FILENO) }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK:
            return .socket
        case S_IFIFO:
            let reopened = open("/proc/self/fd/\(STDERR_FILENO)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            return .descriptor(reopened >= 0 ? reopened : STDERR_FILENO)
        default:
            return .descriptor(STDERR_FILENO)
        }
    }()

    /// Works out where lines go now rather than on the first line: for a pipe, the one
    /// descriptor the log keeps open for the process's life is opened with the first
    /// ``Logger``, not in the middle of serving (a test counting the server's descriptors around
    /// a request that logs saw one more: HARExportFailureTests, run with its output piped).
    static func prepare() {
        _ = kind
    }

    /// Lines dropped since the start because standard error did not take them at once.
    static let droppedLines = Atomic<UInt64>(0)
    /// Lines dropped since the last line written (said by the next one).
    private static let unsaid = Atomic<UInt64>(0)
    /// The `errno` of the last line dropped (what the next line written says).
    private static let lastDropCause = Atomic<Int32>(0)

    /// Writes `line` (ending in a line break) in one call, or drops it when it cannot be written
    /// now: standard error not read fast enough (`EAGAIN`), or a write that fails (`EFBIG` at a
    /// file-size limit, `ENOSPC`, `EIO`: tester finding tester39b-F2, a log file at the
    /// `ulimit -f` the docs recommend lost every line while this count said 0). Each is counted
    /// (``droppedLines``), and the next line written says how many and why. A write that fails
    /// with `EPIPE` (the reader has gone; SIGPIPE is ignored) drops it uncounted: nobody reads.
    static func write(_ line: inout String) {
        let missed = unsaid.exchange(0, ordering: .relaxed)
        if missed > 0 {
            var note = "\(Timestamp.now()) [warning] log: \(missed) line\(missed == 1 ? "" : "s") dropped: "
                + dropCause(lastDropCause.load(ordering: .relaxed)) + "\n"
            if send(&note) != 0 { unsaid.add(missed, ordering: .relaxed) }
        }
        let failure = send(&line)
        if failure != 0 && failure != EPIPE {
            droppedLines.add(1, ordering: .relaxed)
            unsaid.add(1, ordering: .relaxed)
            lastDropCause.store(failure, ordering: .relaxed)
        }
    }

    /// Writes `line`: 0 when written, else the write's `errno`.
    private static func send(_ line: inout String) -> Int32 {
        let written: Int = line.withUTF8 { bytes in
            switch kind {
            case .socket: sendWithoutWaiting(STDERR_FILENO, bytes)
            case let .descriptor(descriptor): writeBytes(descriptor, bytes)
            }
        }
        return written >= 0 ? 0 : errno
    }

    /// Why lines were dropped, for the line that says so.
    private static func dropCause(_ code: Int32) -> String {
        switch code {
        case EAGAIN, EWOULDBLOCK: "standard error was not read fast enough"
        case EFBIG: "standard error is a file at the process's file-size limit (RLIMIT_FSIZE: ulimit -f, LimitFSIZE=)"
        case ENOSPC: "the disk holding standard error's file is full"
        default: "writing to standard error failed (\(String(cString: strerror(code))))"
        }
    }
}

/// `send(2)` of `bytes` with `MSG_DONTWAIT` (SIGPIPE is ignored by the server, so no flag for it).
private func sendWithoutWaiting(_ socket: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    send(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT))
}

/// `write(2)` of `bytes`.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    write(descriptor, bytes.baseAddress, bytes.count)
}
