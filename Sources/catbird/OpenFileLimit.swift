#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files, which caps the connections the server can hold.
enum OpenFileLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (often 1024 → 1048576 on Linux), so a
    /// fleet of test shards is not refused at about a thousand connections. Leaves the limit
    /// as it is when it cannot be read or raised.
    static func raiseToHardLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
    }

    /// Client connections the limit must leave room for beyond the server's own files: 64.
    static let clientRoom = 64

    /// Files the server holds open before its first client, at `threads` worker threads:
    /// 40 + 2 per thread. Measured on Linux (2026-12-04, `ls /proc/PID/fd` of an idle server:
    /// 39 at 1 thread, 41 at 2, 53 at 8, 101 at 32): the SQLite connections' database and
    /// `-wal` files (about 28), the `-shm`, the listening socket, each worker's event and
    /// wake-up descriptors, the standard streams.
    static func serverFiles(threads: Int) -> Int { 40 + 2 * threads }

    /// The reason to refuse the start when the soft `RLIMIT_NOFILE` (read after
    /// ``raiseToHardLimit()``) leaves fewer than ``clientRoom`` client connections beside
    /// ``serverFiles(threads:)``; nil when it does, or cannot be read. With less, the start
    /// failed in one of three misleading ways, depending on the limit: the database file named
    /// unusable (exit 3, which tells a supervisor not to restart), an SQLite "unable to open", or
    /// the port "in use" (tester finding tester21b-F11); or it started and refused clients.
    static func shortfall(threads: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let needed = serverFiles(threads: threads) + clientRoom
        guard limit.rlim_cur < UInt(needed) else { return nil }
        return "the open-file limit (RLIMIT_NOFILE: ulimit -n, LimitNOFILE=) is \(limit.rlim_cur), raised as far as its hard "
            + "limit allows; Catbird needs at least \(needed) at \(threads) worker threads (about \(serverFiles(threads: threads)) "
            + "for its database connections, listening socket and workers, and room for \(clientRoom) client connections): "
            + "raise the limit (ulimit -n, prlimit) or give fewer --threads"
    }
}
