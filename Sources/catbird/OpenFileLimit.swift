import CatbirdServer
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

    /// The reason to refuse the start when the soft `RLIMIT_NOFILE` (read after
    /// ``raiseToHardLimit()``) leaves fewer than ``clientRoom`` client connections, each holding
    /// `perConnection` descriptors, beside the server's own
    /// (``CatbirdServer/CatbirdServer/ownDescriptors(threads:)``); nil when it does, or cannot be
    /// read. With less, the start failed in one of three misleading ways, depending on the limit:
    /// the database file named unusable (exit 3, which tells a supervisor not to restart), an
    /// SQLite "unable to open", or the port "in use" (tester finding tester21b-F11); or it
    /// started, and under load the journal writer could not open SQLite's files (tester finding
    /// tester46b-F9: the check counted 44 own files where the server holds 61; and, F3, it
    /// counted one descriptor per client where `--mocks-dir`, `--redirect-url` and `--proxy` hold two).
    static func shortfall(threads: Int, perConnection: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let own = CatbirdServer.ownDescriptors(threads: threads)
        let needed = own + clientRoom * perConnection
        guard limit.rlim_cur < UInt(needed) else { return nil }
        let clients = perConnection > 1
            ? "room for \(clientRoom) client connections of \(perConnection) descriptors each (a client's socket and an upstream's or "
                + "a file's, with --redirect-url, --proxy or --mocks-dir)"
            : "room for \(clientRoom) client connections"
        return "the open-file limit (RLIMIT_NOFILE: ulimit -n, LimitNOFILE=) is \(limit.rlim_cur), raised as far as its hard "
            + "limit allows; Catbird needs at least \(needed) at \(threads) worker threads (\(own) for its database connections, "
            + "listening socket, workers and the files it opens under load, and \(clients)): raise the limit (ulimit -n, prlimit) "
            + "or give fewer --threads"
    }
}
