import CSQLite

/// One prepared statement (<https://www.sqlite.org/c3ref/stmt.html>), usually obtained from
/// `Database.statement(_:)`, which caches it by SQL text.
///
/// Use: bind parameters (1-based), `step()` until it returns `false` (reading columns while it
/// returns `true`), then `reset()`. Not Sendable, like its `Database`: the same owner
/// serialises every call. Using it after its database was closed traps. Finalized on deinit.
public final class Statement {
    /// The SQL text this statement was prepared from (its first statement only).
    public let sql: String
    /// Number of parameters, i.e. the largest parameter index (`?`, `?NNN`, `:name`…)
    /// (<https://www.sqlite.org/c3ref/bind_parameter_count.html>).
    public let parameterCount: Int32
    let handle: OpaquePointer
    package let connection: Connection
    /// The database caching this statement, told to drop it when a step fails.
    weak var cachingDatabase: Database?
    /// A failure of a non-throwing `bind`, reported by the next `step()`.
    var pendingBindError: SQLiteError?

    package init(handle: OpaquePointer, sql: String, connection: Connection, cachingDatabase: Database?) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        self.cachingDatabase = cachingDatabase
        self.parameterCount = sqlite3_bind_parameter_count(handle)
    }

    deinit {
        // Valid even after sqlite3_close_v2: the connection lives on until this finalize.
        sqlite3_finalize(handle)
    }

    /// Advances to the next result row (`sqlite3_step`, <https://www.sqlite.org/c3ref/step.html>).
    ///
    /// - Returns: `true` when a row is ready to read with `column(_:)`; `false` when the
    ///   statement has finished (it then restarts from the top if stepped again).
    /// - Throws: `SQLiteError` (e.g. `SQLITE_CONSTRAINT`, `SQLITE_BUSY`, `SQLITE_INTERRUPT`), or
    ///   the error recorded by a failed non-throwing `bind`. After a step error the statement is
    ///   reset (bindings kept) and dropped from its database's cache.
    public func step() throws(SQLiteError) -> Bool {
        let database = connection.open("Statement")
        if let bindError = pendingBindError {
            pendingBindError = nil
            throw bindError
        }
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            let error = SQLiteError.current(database, code: status, sql: sql)
            sqlite3_reset(handle)
            cachingDatabase?.evict(self)
            throw error
        }
    }

    /// Steps until done (for statements whose rows, if any, are not wanted), then resets
    /// (`sqlite3_reset`) keeping the bindings, so the same values can be run again.
    ///
    /// - Throws: `SQLiteError` from `step()`.
    public func run() throws(SQLiteError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Rewinds to before the first row and clears all bindings to `NULL` (and any pending
    /// bind error) (<https://www.sqlite.org/c3ref/reset.html>,
    /// <https://www.sqlite.org/c3ref/clear_bindings.html>). Ends the statement's read
    /// transaction, so call it when abandoning a query early.
    public func reset() {
        _ = connection.open("Statement")
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        pendingBindError = nil
    }

    /// `true` when the statement makes no direct change to the database file
    /// (`sqlite3_stmt_readonly`, <https://www.sqlite.org/c3ref/stmt_readonly.html>). Note that
    /// SQLite counts `BEGIN`, `ATTACH` and most `PRAGMA`s as read-only.
    public var isReadOnly: Bool {
        sqlite3_stmt_readonly(handle) != 0
    }
}
