import CatbirdStorage
import CSQLite
import CatbirdSupport

extension Database {
    /// Runs one user-supplied read-only statement over the whole database, every tenant's rows
    /// included. The public `/catbird/api/sql` route must not call this directly: it goes through
    /// ``TenantScopedReader``, which adds the tenant scope on top of these rules.
    ///
    /// Checks, in order:
    /// 1. The first statement compiles under an authorizer (<https://www.sqlite.org/c3ref/set_authorizer.html>)
    ///    allowing only reads, functions (except `load_extension`), recursive CTEs and the
    ///    introspection pragmas listed in `ReadOnlyQueryGuard`, as statements or as table-valued
    ///    functions (`pragma_table_info('t')`): anything else — `INSERT`, `UPDATE`, `DELETE`,
    ///    DDL, `ATTACH`, `BEGIN`, `PRAGMA journal_mode=…`, `pragma_quick_check` — is `.notReadOnly`;
    ///    `PRAGMA database_list` and `pragma_database_list`, which name the file's path, are
    ///    `.pragmaNotAvailable`.
    /// 2. Only whitespace, comments and semicolons may follow it, else `.multipleStatements`;
    ///    an SQL text with no statement is `.empty`.
    /// 3. `sqlite3_stmt_readonly` (<https://www.sqlite.org/c3ref/stmt_readonly.html>) must be
    ///    true and the statement's first word one of ``readOnlyStatements``, else `.notReadOnly`.
    /// 4. `parameters.count` must equal the statement's parameter count
    ///    (<https://www.sqlite.org/c3ref/bind_parameter_count.html>), else
    ///    `.parameterCountMismatch`. Values are bound, never spliced into the SQL.
    ///
    /// It then reads at most `maxRows` rows (≥ 0); `truncated` tells whether another row
    /// existed. Running stops with `.timedOut` once `timeLimit` (wall-clock, from the call) has
    /// passed: a progress handler (<https://www.sqlite.org/c3ref/progress_handler.html>)
    /// checks it every 1000 virtual-machine instructions, and the clock is also read after
    /// every row, so rows that take long to compute in few instructions (`randomblob(50000000)`
    /// per row) stop at the limit too (late by at most one row's cost).
    ///
    /// The result's size — ``ReadOnlyQueryResult/size(ofColumnName:)`` summed over the columns
    /// and ``ReadOnlyQueryResult/size(of:)`` over every value read: what the SQL route writes
    /// for them plus ``ReadOnlyQueryResult/perValueOverhead`` each — may not exceed
    /// `maxResultSize` bytes (≥ 0; default 16 MiB). Each row's bytes are read from SQLite
    /// before it is copied (a lower bound of its size: a row whose bytes alone cross the limit
    /// is never copied), then its size is counted from the copy; the first row that crosses
    /// the limit stops the query with `.resultTooLarge`, so a result never holds more than
    /// about that much.
    ///
    /// The statement is compiled afresh, never cached, and finalized before returning; the
    /// authorizer and progress handler are removed. On a `.readOnly` connection the checks are
    /// a second line of defence behind `query_only`.
    ///
    /// Side effects on the connection: it replaces any authorizer and progress handler (this
    /// type installs none elsewhere), and installing an authorizer makes SQLite re-prepare
    /// this connection's cached statements on their next use, so serve this route from a
    /// dedicated connection (the read-only one) rather than from the busy writer.
    ///
    /// A string or blob growing past `maxValueLength` stops the query with `.valueTooLarge`.
    ///
    /// - Throws: `ReadOnlyQueryError`: `.timedOut`, `.resultTooLarge`, `.valueTooLarge`, the
    ///   refusals above; `.sqlite` wraps SQLite's own refusals (syntax errors, unknown tables)
    ///   and run-time failures.
    public func readOnlyQuery(
        _ sql: String,
        parameters: [SQLiteValue],
        maxRows: Int,
        timeLimit: Duration,
        maxResultSize: Int = ReadOnlyQueryResult.defaultMaxSize
    ) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult {
        try readOnlyQuery(
            sql, parameters: parameters, maxRows: maxRows, timeLimit: timeLimit,
            deadline: ContinuousClock.now.advanced(by: timeLimit), maxResultSize: maxResultSize, maxMemory: nil,
            readPolicy: nil)
    }

    /// The statements a query may be, by their first word: `SELECT`, `WITH`, `VALUES`, `PRAGMA`
    /// and `EXPLAIN` (which runs nothing). `sqlite3_stmt_readonly` alone let through statements
    /// that write when they have something to do and compile to nothing otherwise: `VACUUM temp`,
    /// `VACUUM temp INTO '<file>'` and `REINDEX NOCASE` answered 200 (tester finding tester38a-F1),
    /// and whether they write depends on the schema. The authorizer and `sqlite3_stmt_readonly`
    /// still judge what the statement does.
    static let readOnlyStatements: Set<String> = ["SELECT", "WITH", "VALUES", "PRAGMA", "EXPLAIN"]

    /// Memory SQLite held for one query above which, once the query is done, the connection's
    /// unused cache is released and the C heap trimmed: 16 MiB.
    static let releaseThreshold = 16 << 20

    /// `readOnlyQuery(_:parameters:maxRows:timeLimit:maxResultSize:)` stopped at `deadline`
    /// (`timeLimit` only names the limit in `.timedOut`), whose authorizer also applies
    /// `readPolicy` to every table read (`nil`: any read is allowed; a refused read is
    /// `.outsideTenantScope`), its statement interrupted at `deadline` from another thread as well
    /// (``CatbirdStorage/Database/interrupting(at:_:)``), and with at most `maxMemory` bytes of
    /// SQLite's heap allocated for it on this thread at once (``SQLiteMemoryBudget``; nil: no
    /// bound). An allocation past `maxMemory` that fails the query (SQLite answers
    /// `SQLITE_NOMEM`) is reported as `.memoryLimit`; any other failure keeps its own error. After a
    /// query that held more than ``releaseThreshold``, the connection's unused cache is
    /// released (`sqlite3_db_release_memory`) and the C heap's free pages given back
    /// (``CatbirdSupport/HeapTrim``; large values are mapped one by one and go back when freed, see
    /// ``CatbirdStorage/Database``'s process settings), so the server returns to its size.
    ///
    /// - Throws: `ReadOnlyQueryError`, `.memoryLimit` included.
    func readOnlyQuery(
        _ sql: String,
        parameters: [SQLiteValue],
        maxRows: Int,
        timeLimit: Duration,
        deadline: ContinuousClock.Instant,
        maxResultSize: Int,
        maxMemory: Int?,
        readPolicy: TenantReadPolicy?
    ) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult {
        try budgeted(maxMemory: maxMemory, deadline: deadline, timeLimit: timeLimit) { () throws(ReadOnlyQueryError) in
            try self.readOnlyQuery(
                sql, parameters: parameters, maxRows: maxRows, timeLimit: timeLimit, deadline: deadline,
                maxResultSize: maxResultSize, readPolicy: readPolicy)
        }
    }

    /// Runs `body` (a user's statement compiled, or compiled and run, on this connection)
    /// interrupted at `deadline` from another thread as well (``CatbirdStorage/Database/interrupting(at:_:)``)
    /// and with at most `maxMemory` bytes of SQLite's heap allocated for it on this thread at
    /// once (``SQLiteMemoryBudget``; nil: no bound), and tells why it stopped: an allocation
    /// past `maxMemory` that failed it (SQLite's `SQLITE_NOMEM`) is `.memoryLimit`, one refused
    /// past the deadline `.timedOut` (`timeLimit` named). After a body that held more than
    /// ``releaseThreshold``, the connection's unused cache is released
    /// (`sqlite3_db_release_memory`) and the C heap's free pages given back
    /// (``CatbirdSupport/HeapTrim``).
    private func budgeted<T>(
        maxMemory: Int?, deadline: ContinuousClock.Instant, timeLimit: Duration, _ body: () throws(ReadOnlyQueryError) -> T
    ) throws(ReadOnlyQueryError) -> T {
        func run() -> Result<T, ReadOnlyQueryError> {
            interrupting(at: deadline) {
                do throws(ReadOnlyQueryError) {
                    return .success(try body())
                } catch {
                    return .failure(error)
                }
            }
        }
        guard let maxMemory else { return try run().get() }
        let (outcome, usage) = SQLiteMemoryBudget.withBudget(maxMemory, deadline: deadline, run)
        if usage.peak > Self.releaseThreshold {
            sqlite3_db_release_memory(connection.open("Database"))
            HeapTrim.giveBack()
        }
        // Only SQLite's own out-of-memory failure is the budget's doing: a query that was once
        // refused an allocation SQLite could do without (a cache page) may still stop for
        // another reason, its time limit or its result size, and must say so.
        if usage.refused, case .failure(.sqlite(let error)) = outcome, error.code == SQLITE_NOMEM {
            throw .memoryLimit(limit: maxMemory, compiling: usage.refusedWhileCompiling)
        }
        // A value refused for the deadline fails the statement with SQLite's NOMEM (or the
        // error of the call that asked for it): it is the time limit that stopped it.
        if usage.refusedAtDeadline, case .failure(let failure) = outcome {
            switch failure {
            case .timedOut, .sqlite: throw .timedOut(milliseconds: Int(timeLimit.milliseconds))
            default: throw failure
            }
        }
        return try outcome.get()
    }

    /// The query run without a memory budget, stopped at `deadline` (`timeLimit` names the
    /// limit in `.timedOut`), whose authorizer also applies `readPolicy` to every table read
    /// (`nil`: any read is allowed); a refused read is `.outsideTenantScope`.
    private func readOnlyQuery(
        _ sql: String, parameters: [SQLiteValue], maxRows: Int, timeLimit: Duration,
        deadline: ContinuousClock.Instant, maxResultSize: Int, readPolicy: TenantReadPolicy?
    ) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult {
        precondition(maxRows >= 0, "maxRows must not be negative, got \(maxRows)")
        precondition(maxResultSize >= 0, "maxResultSize must not be negative, got \(maxResultSize)")
        let handle = connection.open("Database")
        let queryGuard = ReadOnlyQueryGuard(deadline: deadline, readPolicy: readPolicy)
        // Retained until the end of this call, so both callbacks always find it alive.
        let context = Unmanaged.passRetained(queryGuard)
        defer { context.release() }

        let preparation: Preparation
        do throws(ReadOnlyQueryError) {
            preparation = try compile(sql, under: context)
        } catch .sqlite(let error) where error.code == SQLITE_INTERRUPT {
            // The deadline's interrupt (`interrupting(at:_:)`) landed while compiling: a query
            // that waited for its connection past its deadline is interrupted at once.
            throw .timedOut(milliseconds: Int(timeLimit.milliseconds))
        }
        guard case .statement(let prepared, let trailing) = preparation else {
            throw .empty
        }
        // Not cached: finalized when `statement` goes out of scope.
        let statement = Statement(handle: prepared, sql: sql, connection: connection, cachingDatabase: nil)
        if let trailing { throw SQLiteError.looksBlank(trailing) ? .notBlankToSQLite(trailing) : .multipleStatements }
        guard statement.isReadOnly, Self.readOnlyStatements.contains(Preparation.firstWord(of: sql)) else { throw .notReadOnly }
        guard parameters.count == Int(statement.parameterCount) else {
            throw .parameterCountMismatch(expected: Int(statement.parameterCount), given: parameters.count)
        }

        sqlite3_progress_handler(handle, 1000, { context in
            Unmanaged<ReadOnlyQueryGuard>.fromOpaque(context!).takeUnretainedValue().progress()
        }, context.toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        // Leaves the statement's read transaction on every exit, a refusal between rows included.
        defer { statement.reset() }
        let columns = statement.columnNames
        var rows: [[SQLiteValue]] = []
        var truncated = false
        var refusal: ReadOnlyQueryError?
        do throws(SQLiteError) {
            try statement.bind(parameters)
            var size = columns.reduce(0) { $0 + ReadOnlyQueryResult.size(ofColumnName: $1) }
            if size > maxResultSize { refusal = .resultTooLarge(limit: maxResultSize, columnNames: true) }
            while refusal == nil, rows.count < maxRows, try statement.step() {
                refusal = Self.refusal(
                    afterStepping: statement, size: size, maxResultSize: maxResultSize,
                    queryGuard: queryGuard, timeLimit: timeLimit)
                if refusal != nil { break }
                let row = statement.currentRow
                size = row.reduce(size) { $0 + ReadOnlyQueryResult.size(of: $1) }
                if size > maxResultSize {
                    refusal = .resultTooLarge(limit: maxResultSize)
                    break
                }
                rows.append(row)
            }
            if refusal == nil && rows.count == maxRows {
                truncated = try statement.step()
            }
        } catch {
            if queryGuard.timedOut || error.code == SQLITE_INTERRUPT {
                throw .timedOut(milliseconds: Int(timeLimit.milliseconds))
            }
            if error.code == SQLITE_TOOBIG {
                throw .valueTooLarge(limit: maxValueLength)
            }
            throw .sqlite(error)
        }
        if let refusal { throw refusal }
        return ReadOnlyQueryResult(columns: columns, rows: rows, truncated: truncated)
    }

    /// The checks between two rows, on the row `statement` just stepped to: the deadline, then
    /// the result's `size` so far plus this row's bytes and overheads (read without copying
    /// them; at most the row's ``ReadOnlyQueryResult/size(of:)``).
    ///
    /// - Returns: `.timedOut` past the deadline, `.resultTooLarge` past `maxResultSize`, else nil.
    private static func refusal(
        afterStepping statement: Statement, size: Int, maxResultSize: Int,
        queryGuard: ReadOnlyQueryGuard, timeLimit: Duration
    ) -> ReadOnlyQueryError? {
        if queryGuard.progress() != 0 {
            return .timedOut(milliseconds: Int(timeLimit.milliseconds))
        }
        var size = size
        for column in 0..<statement.columnCount {
            size += ReadOnlyQueryResult.perValueOverhead + statement.byteCount(at: column)
            if size > maxResultSize { return .resultTooLarge(limit: maxResultSize) }
        }
        return nil
    }

    /// Compiles the first statement of `sql` under the same authorizer as `readOnlyQuery`,
    /// with `readPolicy`, and finalizes it without running it: the inspection pass of a
    /// tenant-scoped query (see `TenantReadPolicy`). Text without a statement passes.
    ///
    /// - Throws: `.notReadOnly`, `.outsideTenantScope`, or `.sqlite` for SQLite's own refusals.
    func inspectReadOnly(
        _ sql: String, readPolicy: TenantReadPolicy, maxMemory: Int, deadline: ContinuousClock.Instant, timeLimit: Duration
    ) throws(ReadOnlyQueryError) {
        let queryGuard = ReadOnlyQueryGuard(deadline: .now, readPolicy: readPolicy)
        let context = Unmanaged.passRetained(queryGuard)
        defer { context.release() }
        // Under the query's own bounds: compiled without them, a costly statement took this
        // connection 10 s and 3.3 GB before the bounded run began (tester finding tester56c-F3).
        try budgeted(maxMemory: maxMemory, deadline: deadline, timeLimit: timeLimit) { () throws(ReadOnlyQueryError) in
            do throws(ReadOnlyQueryError) {
                if case .statement(let prepared, _) = try compile(sql, under: context) {
                    sqlite3_finalize(prepared)
                }
            } catch .sqlite(let error) where error.code == SQLITE_INTERRUPT {
                throw .timedOut(milliseconds: Int(timeLimit.milliseconds))
            }
        }
    }

    /// Prepares the first statement of `sql` with `queryGuard`'s authorizer installed
    /// (<https://www.sqlite.org/c3ref/set_authorizer.html>), removed again before returning.
    /// The caller keeps `queryGuard` retained and finalizes the statement.
    private func compile(
        _ sql: String, under queryGuard: Unmanaged<ReadOnlyQueryGuard>
    ) throws(ReadOnlyQueryError) -> Preparation {
        let handle = connection.open("Database")
        sqlite3_set_authorizer(handle, { context, action, detail1, detail2, database, trigger in
            Unmanaged<ReadOnlyQueryGuard>.fromOpaque(context!).takeUnretainedValue()
                .authorize(action: action, detail1: detail1, detail2: detail2, database: database, context: trigger)
        }, queryGuard.toOpaque())
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        do {
            // Past the deadline every allocation is refused while compiling (SQLiteMemoryBudget).
            return try SQLiteMemoryBudget.compiling { () throws(SQLiteError) in try Preparation.prepare(handle, sql, flags: 0) }
        } catch {
            throw queryGuard.takeUnretainedValue().refusal(for: error)
        }
    }
}
