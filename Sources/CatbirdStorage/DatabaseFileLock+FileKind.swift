#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DatabaseFileLock {
    /// What is at `path` (after symbolic links) when it is neither a regular file nor a folder:
    /// "a block device", "a character device", "a FIFO (named pipe)", "a socket"; nil for a
    /// regular file, a folder (opening it for writing fails with `EISDIR`, which says so) or
    /// nothing at all.
    ///
    /// A device's `st_size` is 0, so SQLite and the start-up check took `--db /dev/sdb` for an
    /// empty database and wrote SQLite's header over its partition table (tester finding
    /// T13B-F7); `/dev/null` got a `/dev/null-journal` beside it.
    static func fileKind(atPath path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return kind(of: status.st_mode)
    }

    /// ``fileKind(atPath:)`` for an open descriptor (nil when `fstat` fails).
    static func fileKind(descriptor: Int32) -> String? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return kind(of: status.st_mode)
    }

    /// The kind of file `mode` (`st_mode`) names, when it is not a regular file nor a folder.
    private static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFBLK: return "a block device"
        case S_IFCHR: return "a character device"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
