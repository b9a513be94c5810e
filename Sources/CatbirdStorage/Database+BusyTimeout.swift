import CSQLite

/// How long a statement waits for another connection's lock before `SQLITE_BUSY`
/// (<https://www.sqlite.org/c3ref/busy_timeout.html>).
extension Database {
    /// Every connection's busy timeout: 5 s, set when it opens.
    public static let busyTimeout = Duration.seconds(5)

    /// Runs `body` with this connection's busy timeout set to `timeout` (whole milliseconds, at
    /// least 1), then sets it back to ``busyTimeout``.
    /// - Returns: what `body` returns.
    /// - Throws: whatever `body` throws.
    public func withBusyTimeout<T>(_ timeout: Duration, _ body: () throws -> T) rethrows -> T {
        let handle = connection.open("Database")
        sqlite3_busy_timeout(handle, Self.wholeMilliseconds(timeout))
        defer { sqlite3_busy_timeout(handle, Self.wholeMilliseconds(Self.busyTimeout)) }
        return try body()
    }

    /// `duration` in whole milliseconds for SQLite, from 1 to `Int32.max`.
    static func wholeMilliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000).partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
    }
}
