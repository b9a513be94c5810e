import CSQLite

/// Scripts, and the connection's state after a statement.
extension Database {
    /// Runs `sql`, one or more `;`-separated statements without parameters, discarding any
    /// rows (`sqlite3_exec`, <https://www.sqlite.org/c3ref/exec.html>). Statements before a
    /// failing one stay executed unless the caller wraps the call in `transaction(_:)`.
    ///
    /// - Throws: `SQLiteError` of the first failing statement; its `sql` is the whole text.
    public func execute(_ sql: String) throws(SQLiteError) {
        let handle = connection.open("Database")
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            var error = SQLiteError.current(handle, code: status, sql: sql)
            if let message {
                error = SQLiteError(code: error.extendedCode, message: String(cString: message), sql: sql)
            }
            throw error
        }
    }

    /// The rowid of the most recent successful `INSERT` on this connection; 0 if none
    /// (<https://www.sqlite.org/c3ref/last_insert_rowid.html>).
    public var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(connection.open("Database"))
    }

    /// Rows changed by the most recent `INSERT`, `UPDATE` or `DELETE` on this connection,
    /// not counting trigger or foreign-key cascade changes (<https://www.sqlite.org/c3ref/changes.html>).
    public var changes: Int {
        Int(sqlite3_changes(connection.open("Database")))
    }

    /// Rows changed by every `INSERT`, `UPDATE` and `DELETE` this connection has run since it
    /// opened (<https://www.sqlite.org/c3ref/total_changes.html>).
    public var totalChanges: Int64 {
        sqlite3_total_changes64(connection.open("Database"))
    }

    /// `true` while a transaction is open, i.e. outside autocommit mode
    /// (<https://www.sqlite.org/c3ref/get_autocommit.html>).
    public var isInTransaction: Bool {
        sqlite3_get_autocommit(connection.open("Database")) == 0
    }
}
