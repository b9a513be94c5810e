#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open files, which caps the connections the server can hold.
enum OpenFileLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (often 1024 → 1048576 on Linux), so a
    /// fleet of test shards is not refused at about a thousand connections.
    /// - Returns: the soft limit now in force.
    @discardableResult
    static func raiseToHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
