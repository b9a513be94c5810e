import Foundation

/// What the process named in a recording's temporary file (``RecordingTemporaryFile``) is, as
/// the start-up sweep sees it: only a running Catbird may still be recording into the
/// directory, so only its files are left alone (`docs/files.md#recording`).
///
/// Tester finding tester20a-F7: a zombie (a Catbird killed with `kill -9` whose parent has not
/// reaped it yet) and an unrelated process that reuses the id (pid 1 in another container, a
/// `sleep`) counted as running Catbirds, and their files were kept without a word.
enum TemporaryFileOwner: Equatable {
    /// No process has the id (`kill(pid, 0)` fails with `ESRCH`), or it is this process's own
    /// (the sweep runs at start-up, before this process records: a Catbird in a container is
    /// often pid 1 at every start).
    case gone
    /// A zombie (state `Z` or `X` in `/proc/<pid>/stat`): it ran and will never write again.
    case zombie(name: String)
    /// A running process that is not a Catbird, with its name (`/proc/<pid>/stat`'s `comm`).
    case other(name: String)
    /// A running Catbird: its executable is this process's (`/proc/<pid>/exe`), or its name is
    /// this process's or `catbird`. Also any running process `/proc` tells nothing of (another
    /// user's with `hidepid`, no `/proc`): kept, as before, rather than deleted unseen.
    case catbird(name: String?)

    /// The owner of a file named with `processID`.
    init(processID: Int) {
        guard processID != Int(getpid()), let id = pid_t(exactly: processID), id > 0 else {
            self = .gone
            return
        }
        guard kill(id, 0) == 0 || errno == EPERM else {
            self = .gone
            return
        }
        guard let (name, state) = Self.nameAndState(of: "/proc/\(id)/stat") else {
            self = .catbird(name: nil)
            return
        }
        if state == "Z" || state == "X" {
            self = .zombie(name: name)
        } else if Self.isCatbird(id, name: name) {
            self = .catbird(name: name)
        } else {
            self = .other(name: name)
        }
    }

    /// Whether the file must be left alone: its process is a running Catbird.
    var isRunningCatbird: Bool {
        if case .catbird = self { return true }
        return false
    }

    /// Why the owner counts as not running, for the sweep's log: `which is no longer running`,
    /// and for a zombie or another program what it is.
    var notRunning: String {
        switch self {
        case .gone, .catbird: return "which is no longer running"
        case let .zombie(name): return "which is no longer running: a zombie ('\(name)') its parent has not reaped yet"
        case let .other(name): return "which is no longer running: its id is now a process that is not a Catbird ('\(name)')"
        }
    }

    /// Whether process `id`, named `name`, runs this process's executable or is called as it
    /// or `catbird` (another build of it: `.build/debug/catbird` beside a release binary).
    private static func isCatbird(_ id: pid_t, name: String) -> Bool {
        if let mine = linkTarget("/proc/self/exe"), linkTarget("/proc/\(id)/exe") == mine { return true }
        return name == "catbird" || name == nameAndState(of: "/proc/self/stat")?.name
    }

    /// The `comm` (second field, in parentheses: it may hold spaces and parentheses itself, so
    /// it ends at the last `)`) and the state (the third field) of a `/proc/<pid>/stat` file.
    static func nameAndState(of statPath: String) -> (name: String, state: Character)? {
        guard let text = try? String(contentsOfFile: statPath, encoding: .utf8),
              let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        guard open < close, let state = rest.first else { return nil }
        return (String(text[text.index(after: open)..<close]), state)
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
