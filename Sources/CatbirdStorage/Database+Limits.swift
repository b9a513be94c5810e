import CSQLite

/// The connection's size limit on values (<https://www.sqlite.org/c3ref/limit.html>).
extension Database {
    /// The largest string, blob or table row this connection will build or read, in bytes
    /// (`SQLITE_LIMIT_LENGTH`, <https://www.sqlite.org/limits.html#max_length>). SQLite's
    /// default and ceiling is its compile-time `SQLITE_MAX_LENGTH` (1,000,000,000 here).
    ///
    /// Past it, the statement fails with `SQLITE_TOOBIG` before allocating the value:
    /// `randomblob`, `zeroblob`, `printf`, `group_concat`, concatenation, bound values, and
    /// reading any column of a stored row whose record is larger than the limit.
    public var maxValueLength: Int {
        Int(sqlite3_limit(connection.open("Database"), SQLITE_LIMIT_LENGTH, -1))
    }

    /// Sets `maxValueLength` to `bytes` (≥ 1), clamped by SQLite to its ceiling, and returns the
    /// limit now in effect. Keep it above the largest row the database stores, or reading that
    /// row fails.
    @discardableResult
    public func setMaxValueLength(_ bytes: Int) -> Int {
        precondition(bytes >= 1, "maxValueLength must be at least 1 byte, got \(bytes)")
        let handle = connection.open("Database")
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: bytes))
        return Int(sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, -1))
    }
}
