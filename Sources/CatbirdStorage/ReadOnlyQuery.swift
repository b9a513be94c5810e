/// The outcome of `Database.readOnlyQuery`: a table of at most `maxRows` rows.
public struct ReadOnlyQueryResult: Sendable, Equatable {
    /// Result column names, in select order.
    public let columns: [String]
    /// The rows, each with one value per column, in the order SQLite produced them.
    public let rows: [[SQLiteValue]]
    /// `true` when the query had more rows than `maxRows` (the rest were not read).
    public let truncated: Bool

    /// A result; every row should have `columns.count` values.
    public init(columns: [String], rows: [[SQLiteValue]], truncated: Bool) {
        self.columns = columns
        self.rows = rows
        self.truncated = truncated
    }
}

/// Why `Database.readOnlyQuery` refused or stopped a query.
public enum ReadOnlyQueryError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The SQL holds no statement (only whitespace, comments or semicolons).
    case empty
    /// A second statement follows the first.
    case multipleStatements
    /// The statement could change the database or the connection: a write, DDL, `ATTACH`,
    /// a transaction statement, or a `PRAGMA` outside the read-only introspection list.
    case notReadOnly
    /// The statement has `expected` parameters but `given` values were passed.
    case parameterCountMismatch(expected: Int, given: Int)
    /// The query ran longer than the time limit of `milliseconds` and was interrupted.
    case timedOut(milliseconds: Int)
    /// A tenant-scoped query (`TenantScopedReader`) read `table` (e.g. `main.requests`)
    /// directly instead of through the tenant's views named `scopedTables`, or read a table
    /// that holds every tenant's data and has no view (e.g. `main.sqlite_stat1`, `dbstat`).
    case outsideTenantScope(table: String, scopedTables: [String])
    /// A string or blob would have grown past the connection's length limit of `limit` bytes
    /// (`SQLITE_TOOBIG`, <https://www.sqlite.org/limits.html#max_length>), e.g.
    /// `SELECT randomblob(900000000)`; SQLite stops before allocating it.
    case valueTooLarge(limit: Int)
    /// SQLite refused the statement (e.g. a syntax error or unknown table) or failed running it.
    case sqlite(SQLiteError)

    /// One readable line, fit for an HTTP 400 body.
    public var description: String {
        switch self {
        case .empty:
            return "no SQL statement given"
        case .multipleStatements:
            return "only one SQL statement is allowed"
        case .notReadOnly:
            return "only read-only statements are allowed (SELECT, WITH … SELECT, VALUES, "
                + "and introspection pragmas such as table_info)"
        case .parameterCountMismatch(let expected, let given):
            return "the statement has \(expected) parameter(s) but \(given) value(s) were given"
        case .timedOut(let milliseconds):
            return "the query was interrupted after its time limit of \(milliseconds) ms"
        case .outsideTenantScope(let table, let scopedTables):
            return "\(table) is not available to tenant-scoped queries; read \(Self.list(scopedTables)) "
                + "through their unqualified names, which show only the caller's tenant's rows"
        case .valueTooLarge(let limit):
            return "a string or blob would exceed the limit of \(Self.size(limit)) per value"
        case .sqlite(let error):
            return error.description
        }
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "the tenant's tables" }
        let rest = names.dropLast()
        return rest.isEmpty ? last : rest.joined(separator: ", ") + " and " + last
    }

    /// `67108864 bytes (64 MiB)`; whole mebibytes only, else just the bytes.
    private static func size(_ bytes: Int) -> String {
        let mebibyte = 1 << 20
        return bytes >= mebibyte && bytes % mebibyte == 0
            ? "\(bytes) bytes (\(bytes / mebibyte) MiB)" : "\(bytes) bytes"
    }
}
