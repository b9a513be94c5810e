import CatbirdSupport
import Foundation

/// The temporary files record mode writes a recording's body and sidecar to before renaming
/// them into place (``FileMockRecorder``): `.catbird-recording-<pid>-<n>.tmp` beside the file,
/// `<pid>` the recording process's id and `<n>` a count within it. Rules: `docs/files.md#recording`.
///
/// A process killed mid-recording (`kill -9`) leaves them behind, and recording directories are
/// usually committed as fixtures (tester finding T12-F3). So a name of this form is never served
/// (``FileMockName`` refuses it, as it refuses a sidecar's name), and the stale ones are removed
/// at start-up (``removeStale(under:isStopping:)``).
///
/// A recording's intent (``RecordingIntent``: what it is about to rename, tester finding
/// tester20a-F1) has the same form with `.intent` before `.tmp`,
/// `.catbird-recording-<pid>-<n>.intent.tmp`; the sweep finishes the recording it describes
/// before removing the temporary files it names.
public enum RecordingTemporaryFile {
    static let prefix = ".catbird-recording-"
    static let suffix = ".tmp"
    /// What an intent's name has before ``suffix``.
    static let intentMarker = ".intent"

    /// The name of this process's temporary file number `ticket`; with `intent`, of its intent
    /// file number `ticket` (``RecordingIntent``).
    static func name(ticket: Int, intent: Bool = false) -> String {
        "\(prefix)\(getpid())-\(ticket)\(intent ? intentMarker : "")\(suffix)"
    }

    /// The process id written in `name` when it has the form `.catbird-recording-<digits>-<digits>.tmp`
    /// or `.catbird-recording-<digits>-<digits>.intent.tmp` (``name(ticket:intent:)``); nil for
    /// any other name.
    static func processID(in name: some StringProtocol) -> Int? {
        var bytes = Array(name.utf8)
        guard bytes.starts(with: prefix.utf8), bytes.count > prefix.utf8.count + suffix.utf8.count,
              bytes.reversed().starts(with: suffix.utf8.reversed()) else { return nil }
        bytes.removeLast(suffix.utf8.count)
        if bytes.reversed().starts(with: intentMarker.utf8.reversed()) { bytes.removeLast(intentMarker.utf8.count) }
        let parts = bytes[prefix.utf8.count...].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 18 && $0.allSatisfy(ASCIIByte.isDigit) }) else { return nil }
        return parts[0].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// Whether `name` (one segment) has the form of a temporary file or an intent (``processID(in:)``).
    static func isTemporary(_ name: some StringProtocol) -> Bool {
        processID(in: name) != nil
    }

    /// Whether `name`, a temporary file's (``isTemporary(_:)``), is an intent's.
    static func isIntent(_ name: some StringProtocol) -> Bool {
        name.hasSuffix(intentMarker + suffix)
    }

    /// What ``removeStale(under:isStopping:)`` did.
    public struct Sweep: Sendable {
        /// Absolute paths of the files removed, each with the process id its name holds and
        /// why that process counts as not running (``TemporaryFileOwner/notRunning``).
        public var removed: [(path: String, processID: Int, why: String)] = []
        /// Recordings cut short between their renames and brought to a whole state from their
        /// intent (``RecordingIntent/recover(in:)``): the file, the process id, what was done.
        public var recovered: [(path: String, processID: Int, what: String)] = []
        /// Recordings whose intent was not acted on, as their target leads out of the mocks
        /// directory (``RecordingIntent/Recovery/refused(file:reason:)``, tester26a-F5): the
        /// file, the process id, why; the intent and its temporary files are removed.
        public var refused: [(path: String, processID: Int, reason: String)] = []
        /// Stale files kept, with why: one that could not be removed (a read-only directory), or
        /// an intent whose recording could not be finished, with the files it holds.
        public var kept: [(path: String, reason: String)] = []
        /// Files left alone because their process is a running Catbird (tester20a-F7), with
        /// its id and name (nil when `/proc` does not tell).
        public var running: [(path: String, processID: Int, name: String?)] = []
        /// Entries looked at (`lstat`).
        public var entries = 0
        /// Whether the walk ended early because `isStopping` said so: the tree was not all seen.
        public var stopped = false
    }

    /// Removes, under `root` (a mocks directory, absolute and resolved; symlinks are not followed), every
    /// temporary file whose process is not a running Catbird (``TemporaryFileOwner``): its id
    /// names no process, or it is this process's id (called at start-up, before this process
    /// records anything: a Catbird in a container is often pid 1 at every start), a zombie, or
    /// a process that is not a Catbird (tester20a-F7). In each directory the intents come
    /// first: each finishes or undoes the recording it describes (``RecordingIntent``,
    /// tester20a-F1), and a temporary file it could not put in place is kept (``Sweep/kept``),
    /// never removed. A file of another running Catbird recording into the same directory is
    /// left alone (``Sweep/running``).
    ///
    /// Cost: one `lstat` per entry of the tree, once at start-up (`docs/files.md#recording`),
    /// and `/proc` reads once per process id found in a temporary file's name.
    /// `isStopping` is asked before each directory and every ``stopCheckEntries`` entries: when
    /// it says yes (a termination signal came, `--mocks-dir /`), the walk ends there
    /// (``Sweep/stopped``).
    public static func removeStale(under root: String, isStopping: () -> Bool = { false }) -> Sweep {
        var sweep = Sweep()
        var owners: [Int: TemporaryFileOwner] = [:]
        var pending = [root]
        while let directory = pending.popLast() {
            if isStopping() {
                sweep.stopped = true
                return sweep
            }
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            var stale: [(name: String, processID: Int, owner: TemporaryFileOwner)] = []
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
                    guard let processID = processID(in: entry) else { continue }
                    let owner = owners[processID] ?? TemporaryFileOwner(processID: processID)
                    owners[processID] = owner
                    if case let .catbird(name) = owner {
                        sweep.running.append((path: path, processID: processID, name: name))
                    } else {
                        stale.append((name: entry, processID: processID, owner: owner))
                    }
                default:
                    continue
                }
            }
            removeStale(stale, in: directory, root: root, into: &sweep)
        }
        return sweep
    }

    /// Handles the stale files of one directory: its intents first (each recovered, then
    /// removed unless its recovery failed), then the temporary files no failed recovery holds.
    /// `root` is the mocks directory, resolved: no recovery renames outside it (tester26a-F5).
    private static func removeStale(
        _ stale: [(name: String, processID: Int, owner: TemporaryFileOwner)], in directory: String, root: String,
        into sweep: inout Sweep
    ) {
        // File names as bytes (``ExactString``): two names canonically equivalent are two files.
        var held: Set<ExactString> = []
        for file in stale where isIntent(file.name) {
            let path = directory + "/" + file.name
            let intent = FileManager.default.contents(atPath: path).flatMap { RecordingIntent(json: $0, processID: file.processID) }
            switch intent?.recover(in: directory, root: root) ?? .nothing {
            case .nothing:
                break
            case let .done(recorded, what):
                sweep.recovered.append((path: recorded, processID: file.processID, what: what))
            case let .refused(recorded, reason):
                sweep.refused.append((path: recorded, processID: file.processID, reason: reason))
            case let .failed(recorded, reason, names):
                held.formUnion((names + [file.name]).map { ExactString($0) })
                sweep.kept.append(
                    (path: path, reason: "the intent of a recording of '\(recorded)' cut short (e.g. by kill -9), which could not be "
                        + "finished: \(reason); kept\(names.isEmpty ? "" : " with " + names.joined(separator: ", ")) for the next start to try again"))
            }
        }
        for file in stale where !held.contains(ExactString(file.name)) {
            let path = directory + "/" + file.name
            if unlink(path) == 0 {
                sweep.removed.append((path: path, processID: file.processID, why: file.owner.notRunning))
            } else if errno != ENOENT {
                sweep.kept.append(
                    (path: path, reason: "a recording's temporary file left by process \(file.processID), \(file.owner.notRunning), which "
                        + "cannot be removed: \(String(cString: strerror(errno)))"))
            }
        }
    }

    /// How many entries ``removeStale(under:isStopping:)`` looks at between two questions to
    /// `isStopping` within one directory (a few milliseconds of `lstat`s).
    static let stopCheckEntries = 1024
}
