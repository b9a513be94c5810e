import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DatabaseLocation {
    /// The name of a `:memory:` stand-in file of process `pid`: `catbird-memory-<pid>-<UUID>.sqlite`.
    static let temporaryPrefix = "catbird-memory-"

    /// Deletes the `:memory:` stand-ins (``temporaryPrefix``, and their `-wal` and `-shm`) that
    /// servers killed before their clean stop (kill -9, a CI runner's timeout, a failed start)
    /// left in `directory`, the temporary directory by default: a tmpfs `/tmp` is memory,
    /// and nothing else ever removes them (tester finding tester21b-F10). A file is deleted
    /// only when both say its server is gone: no process has the pid in its name (`kill(pid,
    /// 0)` fails with `ESRCH`), and no process holds the file's `flock`
    /// (``CatbirdStorage/DatabaseFileLock``, which every running server holds on its file).
    /// A `-wal` or `-shm` whose database file is gone goes by the pid alone. Returns the paths
    /// deleted (database files only). Never throws: a file that cannot be checked is kept.
    @discardableResult
    static func removeLeftovers(in directory: String = FileManager.default.temporaryDirectory.path) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        let files = FileManager.default
        for name in names where name.hasPrefix(temporaryPrefix) {
            let path = directory + "/" + name
            if name.hasSuffix(".sqlite") {
                guard let pid = ownerPID(of: name), isGone(pid), isUnlocked(path) else { continue }
                for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: path + suffix) }
                removed.append(path)
            } else if name.hasSuffix(".sqlite-wal") || name.hasSuffix(".sqlite-shm") {
                let database = String(path.dropLast(4))
                guard !files.fileExists(atPath: database), let pid = ownerPID(of: name), isGone(pid) else { continue }
                try? files.removeItem(atPath: path)
            }
        }
        return removed
    }

    /// The pid in a stand-in's name (`catbird-memory-<pid>-…`), nil when it has none.
    private static func ownerPID(of name: String) -> pid_t? {
        let digits = name.dropFirst(temporaryPrefix.count).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }

    /// Whether no process has `pid` (this one's own never counts as gone).
    private static func isGone(_ pid: pid_t) -> Bool {
        pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Whether no process holds an `flock` on the file at `path` (the lock taken and let go).
    private static func isUnlocked(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }
}
