/// The file descriptors the server holds or may open besides its client connections, which the
/// open-file limit must leave room for (README.md#connections).
extension CatbirdServer {
    /// Descriptors an idle server holds at `threads` worker threads: 57 + 2 per thread.
    /// Measured on Linux (2026-12-06, `ls /proc/PID/fd`: 59 at 1 thread, 61 at 2, 73 at 8): its
    /// SQLite connections' database and `-wal` files (45: the write connection, the read pool, the
    /// SQL pool's readers and their checks, and the database's lock), the standard streams and
    /// `/dev/null`, the listening socket, a pipe and a timer, each worker's event and wake-up
    /// descriptors. `OpenFileLimitTests` checks running servers against it. The figure of
    /// 2026-12-04 (40 + 2 per thread) had gone stale as connections were added (tester finding
    /// tester46b-F9: 61 held where 44 were counted).
    public static func idleDescriptors(threads: Int) -> Int { 57 + 2 * max(1, threads) }

    /// Descriptors opened for a while under load, beyond the idle ones: 32 (SQLite's temporary
    /// files of sorts and statement journals, a HAR export's own connection, name lookups).
    public static let transientDescriptors = 32

    /// What the open-file limit must leave beside the client connections at `threads` worker
    /// threads: ``idleDescriptors(threads:)`` + ``transientDescriptors``.
    public static func ownDescriptors(threads: Int) -> Int { idleDescriptors(threads: threads) + transientDescriptors }
}

extension CatbirdServer.Settings {
    /// Descriptors one client connection may hold at once: 2 when it may also hold an upstream's
    /// socket (`--redirect-url`, `--proxy`) or an open file (`--mocks-dir`; tester finding
    /// tester40a-F3), else 1.
    public var descriptorsPerConnection: Int { redirectURL != nil || proxyEnabled || mocksDirectory != nil ? 2 : 1 }
}
