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
}
