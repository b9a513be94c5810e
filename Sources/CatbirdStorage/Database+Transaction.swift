import CSQLite

extension Database {
    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT` and returns its result
    /// (<https://www.sqlite.org/lang_transaction.html>).
    ///
    /// `IMMEDIATE` takes the write lock up front (waiting up to the busy timeout), so the body
    /// never fails half-way with `SQLITE_BUSY` when upgrading from read to write. If `body`
    /// throws, or `COMMIT` fails, the transaction is rolled back (when SQLite has not already
    /// done so) and the error is rethrown unchanged. Transactions do not nest: calling this
    /// inside another throws SQLite's "cannot start a transaction within a transaction".
    ///
    /// - Throws: whatever `body` throws, or `SQLiteError` from `BEGIN` or `COMMIT`.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(beginning: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` inside a deferred `BEGIN` … `COMMIT` (no write lock taken: its reads see one
    /// snapshot of the file) and returns its result; rolled back and rethrown as ``transaction(_:)``
    /// does, so a failed `COMMIT` never leaves the connection inside the transaction.
    ///
    /// - Throws: whatever `body` throws, or `SQLiteError` from `BEGIN` or `COMMIT`.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(beginning: "BEGIN", body)
    }

    private func transaction<T>(beginning begin: String, _ body: () throws -> T) throws -> T {
        try run(begin)
        let result: T
        do {
            result = try body()
            try run("COMMIT")
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if any; ignores errors (the caller is already failing).
    private func rollbackIfOpen() {
        let handle = connection.open("Database")
        if sqlite3_get_autocommit(handle) == 0 {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }
}
