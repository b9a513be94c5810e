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
        case .sqlite(let error):
            return error.description
        }
    }
}
