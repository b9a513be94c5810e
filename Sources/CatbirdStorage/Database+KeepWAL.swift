import CSQLite

extension Database {
    /// Makes ``close()`` skip the checkpoint SQLite runs when the last connection on a WAL file
    /// closes, so that the `-wal` and `-shm` stay beside the file rather than the WAL being
    /// copied into it and deleted (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`,
    /// <https://www.sqlite.org/c3ref/c_dbconfig_defensive.html>). For a file truncated under the
    /// server (``DatabaseFileLock/truncated()``): copied into it, the WAL's pages would land in a
    /// file that lost the others, and the `-wal`, the last copy of the recent changes, be deleted.
    /// - Throws: `SQLiteError` when SQLite refuses the setting.
    public func keepWALOnClose() throws(SQLiteError) {
        let handle = connection.open("Database")
        let status = catbird_sqlite3_keep_wal_on_close(handle)
        guard status == SQLITE_OK else { throw SQLiteError.current(handle, code: status, sql: nil) }
    }
}
