import CatbirdSupport
import Foundation

/// The temporary files record mode writes a recording's body and sidecar to before renaming
/// them into place (``FileMockRecorder``): `.catbird-recording-<pid>-<n>.tmp` beside the file,
/// `<pid>` the recording process's id and `<n>` a count within it. Rules: `docs/files.md#recording`.
///
/// A process killed mid-recording (`kill -9`) leaves them behind, and recording directories are
/// usually committed as fixtures (tester finding T12-F3). So a name of this form is never served
/// (``FileMockName`` refuses it, as it refuses a sidecar's name), and the stale ones are removed
/// at start-up (``removeStale(under:)``).
public enum RecordingTemporaryFile {
    static let prefix = ".catbird-recording-"
    static let suffix = ".tmp"

    /// The name of this process's temporary file number `ticket`.
    static func name(ticket: Int) -> String {
        "\(prefix)\(getpid())-\(ticket)\(suffix)"
    }

    /// The process id written in `name` when it has the form `.catbird-recording-<digits>-<digits>.tmp`
    /// (``name(ticket:)``); nil for any other name.
    static func processID(in name: some StringProtocol) -> Int? {
        let bytes = Array(name.utf8)
        guard bytes.starts(with: prefix.utf8), bytes.count > prefix.utf8.count + suffix.utf8.count,
              bytes.reversed().starts(with: suffix.utf8.reversed()) else { return nil }
        let middle = bytes[prefix.utf8.count..<(bytes.count - suffix.utf8.count)]
        let parts = middle.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 18 && $0.allSatisfy(ASCIIByte.isDigit) }) else { return nil }
        return parts[0].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// Whether `name` (one segment) has the form of a temporary file (``processID(in:)``).
    static func isTemporary(_ name: some StringProtocol) -> Bool {
        processID(in: name) != nil
    }

    /// What ``removeStale(under:)`` did.
    public struct Sweep: Sendable {
        /// Absolute paths of the files removed, each with the process id its name holds.
        public var removed: [(path: String, processID: Int)] = []
        /// Stale files that could not be removed, with the system's reason.
        public var kept: [(path: String, reason: String)] = []
        /// Entries looked at (`lstat`).
        public var entries = 0
        /// Whether the walk ended early because `isStopping` said so: the tree was not all seen.
        public var stopped = false
    }

    /// Removes, under `root` (a mocks directory, absolute; symlinks are not followed), every
    /// temporary file whose process is not running: its id names no process (`kill(pid, 0)`
    /// fails with `ESRCH`), or it is this process's id (called at start-up, before this process
    /// records anything: a Catbird in a container is often pid 1 at every start). A file of
    /// another running Catbird recording into the same directory is left alone.
    ///
    /// Cost: one `lstat` per entry of the tree, once at start-up (`docs/files.md#recording`).
    /// `isStopping` is asked before each directory and every ``stopCheckEntries`` entries: when
    /// it says yes (a termination signal came, `--mocks-dir /`), the walk ends there
    /// (``Sweep/stopped``).
    public static func removeStale(under root: String, isStopping: () -> Bool = { false }) -> Sweep {
        var sweep = Sweep()
        var pending = [root]
        while let directory = pending.popLast() {
            if isStopping() {
                sweep.stopped = true
                return sweep
            }
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for entry in entries {
                sweep.entries += 1
                if sweep.entries % stopCheckEntries == 0, isStopping() {
                    sweep.stopped = true
                    return sweep
                }
                let path = directory + "/" + entry
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    pending.append(path)
                case S_IFREG:
                    guard let owner = processID(in: entry), !isRunning(owner) else { continue }
                    if unlink(path) == 0 {
                        sweep.removed.append((path: path, processID: owner))
                    } else {
                        sweep.kept.append((path: path, reason: String(cString: strerror(errno))))
                    }
                default:
                    continue
                }
            }
        }
        return sweep
    }

    /// How many entries ``removeStale(under:isStopping:)`` looks at between two questions to
    /// `isStopping` within one directory (a few milliseconds of `lstat`s).
    static let stopCheckEntries = 1024

    /// Whether a process other than this one has the id `processID` (`kill(pid, 0)`: 0, or
    /// `EPERM` for another user's process).
    private static func isRunning(_ processID: Int) -> Bool {
        guard processID != Int(getpid()), let id = pid_t(exactly: processID), id > 0 else { return false }
        return kill(id, 0) == 0 || errno == EPERM
    }
}
