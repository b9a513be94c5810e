import CSQLite

/// Prepared statements, cached by SQL text, and the one-call `run` / `query` built on them.
extension Database {
    /// The prepared statement for `sql`, from the cache when this exact text was seen before,
    /// else compiled (`sqlite3_prepare_v3` with `SQLITE_PREPARE_PERSISTENT`,
    /// <https://www.sqlite.org/c3ref/prepare.html>) and cached. It is returned reset, with all
    /// parameters `NULL`.
    ///
    /// The cache holds one statement per text, at most ``statementCacheLimit`` (then it is
    /// emptied and fills again): do not interleave two uses of the same SQL
    /// (e.g. stepping it while running it again inside the loop). A statement whose `step()`
    /// failed is dropped from the cache and finalized once no longer referenced.
    ///
    /// - Throws: `SQLiteError`: a compile error, or `SQLITE_MISUSE` when `sql` holds no
    ///   statement or more than one (use `execute(_:)` for scripts).
    public func statement(_ sql: String) throws(SQLiteError) -> Statement {
        try statement(StatementText(sql))
    }

    /// `statement(_:)` for a text whose hash is already worked out: a text used on
    /// every call of a hot path (the journal writer's `INSERT`) is kept as a ``StatementText``
    /// and not hashed again per lookup.
    public func statement(_ text: StatementText) throws(SQLiteError) -> Statement {
        let sql = text.sql
        if let cached = statementCache[text] {
            cached.reset()
            return cached
        }
        let handle = connection.open("Database")
        let prepared: OpaquePointer
        switch try Preparation.prepare(handle, sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT)) {
        case .empty:
            throw SQLiteError(code: SQLITE_MISUSE, message: "no SQL statement in the text", sql: sql)
        case .statement(let statement, let trailing):
            guard trailing == nil else {
                sqlite3_finalize(statement)
                throw SQLiteError(
                    code: SQLITE_MISUSE,
                    message: "more than one SQL statement; use execute(_:) for scripts",
                    sql: sql
                )
            }
            prepared = statement
        }
        let statement = Statement(handle: prepared, sql: sql, connection: connection, cachingDatabase: self)
        // Statements in use elsewhere stay valid: the cache only drops its references.
        if statementCache.count >= Self.statementCacheLimit { statementCache.removeAll(keepingCapacity: true) }
        statementCache[text] = statement
        return statement
    }

    /// Runs one statement with `bindings` for its parameters (`bindings[0]` is `?1`), discarding
    /// any rows; see `changes` and `lastInsertRowID` for its effect.
    ///
    /// A `bindings.count` other than the statement's parameter count traps (programmer error).
    /// - Throws: `SQLiteError` from preparing, binding or stepping.
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        try statement.run()
    }

    /// Runs one statement with `bindings` and returns all its rows, in order; `[]` when none.
    ///
    /// A `bindings.count` other than the statement's parameter count traps (programmer error).
    /// - Throws: `SQLiteError` from preparing, binding or stepping.
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [Row] {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        let columns = statement.columnNames
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(columns: columns, values: statement.currentRow))
        }
        return rows
    }

    /// Drops `statement` from the cache if it is the one cached for its SQL.
    func evict(_ statement: Statement) {
        let text = StatementText(statement.sql)
        if statementCache[text] === statement {
            statementCache[text] = nil
        }
    }
}
