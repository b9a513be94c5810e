import CatbirdStorage
import CSQLite
import Synchronization

/// Runs user SQL (`readOnlyQuery`'s rules) so that it sees one tenant's rows only: the SQL API
/// of a server shared by several tenants.
///
/// It opens two read-only connections on the database file:
/// - the *executing* connection, where each scoped table `t` of the `TenantScope` is shadowed
///   by `CREATE TEMP VIEW t AS SELECT * FROM main.t WHERE <tenant column> = <tenantFunction>()`.
///   Unqualified names resolve to the `temp` schema first, so `SELECT … FROM requests` reads
///   the caller's rows only (and through the tenant column's index, when there is one);
/// - the *inspecting* connection, where each `t` is an empty temp table with the same
///   columns. Every query is first compiled there (never run): since names resolve alike on
///   both connections, any read of `main.t` it makes is the user's own, not a view's, and is
///   refused with `.outsideTenantScope`. That covers `main.requests` written directly, or
///   inside a subquery, a `WITH` clause, or a CTE named like the view itself — SQLite's
///   authorizer cannot tell such a CTE from the view (see `TenantReadPolicy`). Being tables,
///   they also let the authorizer refuse `DELETE FROM requests` as a write (`.notReadOnly`),
///   which SQLite would otherwise reject first as a write to a view.
///
/// Outside the views, a query may read only the `temp` schema, the schema table, the scope's
/// shared tables and the table-valued functions `json_each`, `json_tree` and `pragma_*`: any
/// other table (one added later, `sqlite_stat1`) or virtual table (`dbstat`) is refused too.
///
/// Both connections are `SQLITE_OPEN_READONLY` with `query_only=1` (switched on after the temp
/// objects are made: the `temp` schema is writable even on a read-only connection), wait up to
/// 5000 ms for locks, and cap strings, blobs and rows at `maxValueLength` bytes
/// (<https://www.sqlite.org/limits.html#max_length>), so `SELECT randomblob(900000000)` fails
/// with `.valueTooLarge` instead of allocating; `printf`/`format` refuse a width or precision
/// past that limit the same way before SQLite spins on it (so `printf('%.*c', 2000000000, 'x')`
/// answers at once), and `instr`, `replace`, `like`, `glob`, the `trim`s and `json_patch`
/// refuse arguments whose lengths multiply past their bound with `.functionTooCostly`
/// (``CheckedBuiltinFunctions``: SQLite cannot interrupt one function call). A query's whole result is capped too
/// (`maxResultSize`, 16 MiB by default), so `SELECT randomblob(60000000) FROM <20 rows>` stops
/// with `.resultTooLarge` at its first row instead of gathering 1.2 GB. Many values held at
/// once are bounded by ``maxQueryMemory`` (SQLite's memory for one query), and a statement is
/// interrupted at its deadline from another thread too, so a heavy step per row stops within
/// one step of it.
///
/// Sendable: queries take turns on a lock, so one reader serves every thread. The stand-in
/// tables copy the scoped tables' columns when the reader opens: open it after migrating.
public final class TenantScopedReader: Sendable {
    /// The default `maxValueLength`: 64 MiB.
    public static let defaultMaxValueLength = 64 << 20

    /// The database file.
    public let path: String
    /// What is scoped.
    public let scope: TenantScope
    /// The length limit in effect, in bytes (SQLite may have clamped the requested one).
    public let maxValueLength: Int
    /// The most bytes of SQLite's memory one query may hold at once: 4 × ``maxValueLength``
    /// (256 MiB with the default 64 MiB), room for one value of the largest size with SQLite's
    /// copies of it and the value it was built from (`SELECT length(hex(zeroblob(30000000)))`,
    /// a 60 MB value, peaks at about 230 MB: the expanded blob, the text and a copy of it).
    /// Past it the query fails with `.memoryLimit` (``CatbirdStorage/SQLiteMemoryBudget``).
    public var maxQueryMemory: Int { 4 * maxValueLength }
    private let connections: Mutex<Connections>

    /// The two connections and the tenant of the running query.
    private final class Connections {
        let executing: Database
        /// The executing connection's checked built-ins, which tell why a call was refused.
        let checkedFunctions: CheckedBuiltinFunctions
        let inspecting: Database
        let tenant: TenantFunction
        let executionPolicy: TenantReadPolicy
        let inspectionPolicy: TenantReadPolicy

        init(
            executing: (Database, CheckedBuiltinFunctions), inspecting: Database, tenant: TenantFunction,
            executionPolicy: TenantReadPolicy, inspectionPolicy: TenantReadPolicy
        ) {
            (self.executing, checkedFunctions) = executing
            self.inspecting = inspecting
            self.tenant = tenant
            self.executionPolicy = executionPolicy
            self.inspectionPolicy = inspectionPolicy
        }
    }

    /// Opens the reader on the existing database at `path`.
    ///
    /// - Parameter maxValueLength: bytes (≥ 1); keep it above the largest row the database
    ///   stores, schema rows included (a few KiB), or reading that row fails with
    ///   `.valueTooLarge` (`SQLiteError` `SQLITE_TOOBIG` here, for the schema).
    /// - Throws: `SQLiteError`: `SQLITE_CANTOPEN` for a missing file, `SQLITE_ERROR` (`no such
    ///   table: main.t`) when a scoped table is missing, or a failure creating the temp objects
    ///   or registering the tenant function.
    /// - Parameter functions: registers further SQL functions the scope's `visibleRows`
    ///   conditions call, on each connection before its views are made.
    public init(
        path: String, scope: TenantScope, maxValueLength: Int = defaultMaxValueLength,
        functions: @Sendable (Database) throws(SQLiteError) -> Void = { _ in }
    ) throws(SQLiteError) {
        let tenant = TenantFunction()
        let executing = try Self.open(path, scope: scope, maxValueLength: maxValueLength, tenant: tenant, functions: functions) { table, _ in
            "CREATE TEMP VIEW \(Self.quoted(table.name)) AS SELECT * FROM main.\(Self.quoted(table.name)) "
                + "WHERE \(Self.quoted(table.tenantColumn)) = \(scope.tenantFunction)()"
                + (table.visibleRows.map { " AND (\($0))" } ?? "")
        }
        let inspecting = try Self.open(path, scope: scope, maxValueLength: maxValueLength, tenant: tenant, functions: functions) { table, columns in
            "CREATE TEMP TABLE \(Self.quoted(table.name)) (" + columns.map(Self.quoted).joined(separator: ", ") + ")"
        }
        let mainTables = try Self.firstColumn(of: "SELECT name FROM main.sqlite_schema WHERE type = 'table'", in: executing.0)
        self.path = path
        self.scope = scope
        self.maxValueLength = executing.0.maxValueLength
        connections = Mutex(Connections(
            executing: executing, inspecting: inspecting.0, tenant: tenant,
            executionPolicy: TenantReadPolicy(pass: .execution, scope: scope, mainTables: mainTables),
            inspectionPolicy: TenantReadPolicy(pass: .inspection, scope: scope, mainTables: mainTables)))
    }

    /// Runs `sql` for `tenant` (e.g. `""`) as `Database.readOnlyQuery` does — one read-only
    /// statement, `parameters` bound, at most `maxRows` (≥ 0) rows, at most `maxResultSize`
    /// bytes of result (≥ 0; default 16 MiB, see ``ReadOnlyQueryResult/size(of:)``), stopped
    /// after `timeLimit` — with the scoped tables showing `tenant`'s rows only. Blocks while
    /// another thread queries; `timeLimit` counts from this call, so the wait is part of it and
    /// a caller gets its answer within about `timeLimit` however many queries are queued.
    /// A `deadline` given stops it then instead (`timeLimit` still names the limit in `.timedOut`).
    ///
    /// - Throws: `ReadOnlyQueryError`: `.outsideTenantScope` for a read that bypasses the views,
    ///   `.valueTooLarge` past `maxValueLength`, `.resultTooLarge` past `maxResultSize`,
    ///   `.memoryLimit` past ``maxQueryMemory``,
    ///   `.timedOut`, and `readOnlyQuery`'s other cases.
    public func query(
        _ sql: String,
        tenant: String,
        parameters: [SQLiteValue],
        maxRows: Int,
        timeLimit: Duration,
        deadline: ContinuousClock.Instant? = nil,
        maxResultSize: Int = ReadOnlyQueryResult.defaultMaxSize
    ) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult {
        let deadline = deadline ?? ContinuousClock.now.advanced(by: timeLimit)
        return try connections.withLock { (connections: inout Connections) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult in
            try connections.inspecting.inspectReadOnly(
                sql, readPolicy: connections.inspectionPolicy, maxMemory: maxQueryMemory, deadline: deadline, timeLimit: timeLimit)
            connections.tenant.current = tenant
            defer { connections.tenant.current = nil }
            _ = connections.checkedFunctions.takeRefusal()
            connections.checkedFunctions.deadline = deadline
            defer { connections.checkedFunctions.deadline = nil }
            do throws(ReadOnlyQueryError) {
                return try connections.executing.readOnlyQuery(
                    sql, parameters: parameters, maxRows: maxRows, timeLimit: timeLimit, deadline: deadline,
                    maxResultSize: maxResultSize, maxMemory: maxQueryMemory, readPolicy: connections.executionPolicy)
            } catch .sqlite(let error) {
                // SQLite reports a refused call as the function's error; say which and why.
                guard case .tooCostly(let function, _, _, _)? = connections.checkedFunctions.takeRefusal() else {
                    throw .sqlite(error)
                }
                throw .functionTooCostly(function: function, reason: error.message)
            }
        }
    }

    /// Closes both connections once the running query (if any) is done. Querying afterwards is
    /// a programmer error and traps. Idempotent.
    public func close() {
        connections.withLock { connections in
            connections.executing.close()
            connections.inspecting.close()
        }
    }

    /// One connection: read-only, length-capped, the tenant function registered, costly
    /// built-ins checked (returned beside it), and one temp object per scoped table, created by
    /// the statement `shadow` gives from the table and its columns.
    private static func open(
        _ path: String, scope: TenantScope, maxValueLength: Int, tenant: TenantFunction,
        functions: @Sendable (Database) throws(SQLiteError) -> Void, shadow: (TenantScope.Table, [String]) -> String
    ) throws(SQLiteError) -> (Database, CheckedBuiltinFunctions) {
        let database = try Database(path: path, mode: .readOnly)
        database.setMaxValueLength(maxValueLength)
        try tenant.register(as: scope.tenantFunction, on: database)
        try functions(database)
        let checkedFunctions = try CheckedBuiltinFunctions(limitsOf: database)
        try checkedFunctions.install(on: database)
        var statements: [String] = []
        for table in scope.tables {
            statements.append(shadow(table, try columnNames(of: table.name, in: database)))
        }
        // query_only forbids writing the temp schema too; the connection itself stays
        // SQLITE_OPEN_READONLY for the main database throughout.
        try database.execute("PRAGMA query_only=0")
        try database.execute(statements.joined(separator: ";\n"))
        try database.execute("PRAGMA query_only=1")
        return (database, checkedFunctions)
    }

    /// The columns of `main.<table>`, in order, from a compiled `SELECT *` that is never run.
    private static func columnNames(of table: String, in database: Database) throws(SQLiteError) -> [String] {
        try uncachedStatement("SELECT * FROM main.\(quoted(table))", in: database).columnNames
    }

    /// The first column of every row of `sql`, as text.
    private static func firstColumn(of sql: String, in database: Database) throws(SQLiteError) -> [String] {
        let statement = try uncachedStatement(sql, in: database)
        var values: [String] = []
        while try statement.step() {
            if case .text(let text) = statement.column(0) { values.append(text) }
        }
        return values
    }

    /// `sql` compiled outside the statement cache; finalized when released.
    private static func uncachedStatement(_ sql: String, in database: Database) throws(SQLiteError) -> Statement {
        let handle = database.connection.open("Database")
        guard case .statement(let prepared, _) = try Preparation.prepare(handle, sql, flags: 0) else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no SQL statement in the text", sql: sql)
        }
        return Statement(handle: prepared, sql: sql, connection: database.connection, cachingDatabase: nil)
    }

    /// `name` as an SQL identifier: in double quotes, inner quotes doubled.
    private static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
