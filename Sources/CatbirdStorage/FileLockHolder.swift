import CatbirdSupport
#if canImport(Glibc)
import Glibc
#endif

/// Who holds a `flock` on a file, from the kernel's table of locks (`/proc/locks`; Linux), so
/// that a database locked by another program is not blamed on another Catbird server (tester
/// finding tester42b-F16: a backup script run under `flock catbird.sqlite …` made the start fail
/// with "in use by another Catbird server", naming no process).
enum FileLockHolder {
    /// The process holding a `FLOCK` on the file open at `descriptor`, and its command line (its
    /// arguments joined by spaces, at most 200 bytes; its name when the line cannot be read); nil
    /// when none is listed or the table cannot be read.
    static func holder(of descriptor: Int32) -> (pid: Int32, command: String, isCatbird: Bool)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, let table = ProcFile.text("/proc/locks") else { return nil }
        // `2: FLOCK  ADVISORY  WRITE 19097 fe:00:5319229 0 EOF`: the pid, then major:minor:inode.
        let inode = ":\(info.st_ino)"
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5].hasSuffix(inode),
                  let pid = Int32(fields[4]), pid != getpid() else { continue }
            let name = ProcFile.text("/proc/\(pid)/comm")?.split(separator: "\n").first.map(String.init) ?? ""
            let arguments = ProcFile.text("/proc/\(pid)/cmdline")?.split(separator: "\0").joined(separator: " ") ?? ""
            let command = (arguments.isEmpty ? name : arguments).utf8Prefix(200)
            return (pid, command, name.hasPrefix("catbird"))
        }
        return nil
    }
}
