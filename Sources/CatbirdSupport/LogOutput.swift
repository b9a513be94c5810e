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
/// at once is dropped and counted (``droppedLines``, `catbird_log_lines_dropped_total`); the next
/// line written says how many were dropped.
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

    /// Writes `line` (ending in a line break) in one call, or drops it when it cannot be written
    /// now. A failed write for another reason (EPIPE once the reader has gone; SIGPIPE is
    /// ignored) drops it too, uncounted: nobody reads.
    static func write(_ line: inout String) {
        let missed = unsaid.exchange(0, ordering: .relaxed)
        if missed > 0 {
            var note = "\(Timestamp.now()) [warning] log: \(missed) line\(missed == 1 ? "" : "s") dropped: standard error was not read fast enough\n"
            if !send(&note) { unsaid.add(missed, ordering: .relaxed) }
        }
        if !send(&line) {
            droppedLines.add(1, ordering: .relaxed)
            unsaid.add(1, ordering: .relaxed)
        }
    }

    /// Whether `line` was not refused for lack of room (written, or failed for another reason).
    private static func send(_ line: inout String) -> Bool {
        let written: Int = line.withUTF8 { bytes in
            switch kind {
            case .socket: sendWithoutWaiting(STDERR_FILENO, bytes)
            case let .descriptor(descriptor): writeBytes(descriptor, bytes)
            }
        }
        return written >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
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
