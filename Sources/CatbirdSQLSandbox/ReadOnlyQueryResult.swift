import CatbirdStorage
import CatbirdSupport
/// The outcome of `Database.readOnlyQuery`: a table of at most `maxRows` rows, whose size (see
/// ``size(of:)`` and ``size(ofColumnName:)``) is at most the query's `maxResultSize`.
public struct ReadOnlyQueryResult: Sendable, Equatable {
    /// The default cap on a result's size (``size(ofColumnName:)`` summed over the columns
    /// plus ``size(of:)`` over every value): 16 MiB.
    public static let defaultMaxSize = 16 << 20
    /// What each value counts for in a result's size besides its JSON, in bytes: 16 (the
    /// separators and digits around it). It keeps a result of many small values (10,000 rows
    /// of 2,000 `NULL`s) from growing without bound.
    public static let perValueOverhead = 16

    /// How much `value` counts for in a result's size, in bytes: ``perValueOverhead``, plus
    /// what the SQL route's answer writes for a text or a blob: a text as a JSON string
    /// (``jsonStringSize(_:)``), a blob as `{"base64":"…"}` (13 bytes and its base64). So the
    /// size bounds the answer's bytes: a text of control characters counts 6 bytes for each
    /// (`\u0001`), not 1 (T16-F4: 16 million of them made a 96 MB answer under a 16 MiB limit).
    public static func size(of value: SQLiteValue) -> Int {
        switch value {
        case .text(let text): return perValueOverhead + jsonStringSize(text)
        case .blob(let bytes): return perValueOverhead + 13 + (bytes.count + 2) / 3 * 4
        case .null, .integer, .real: return perValueOverhead
        }
    }

    /// How much a result column's name counts for in a result's size, in bytes:
    /// ``perValueOverhead`` plus its JSON string (a name of 20 MB of `x` counts 20 MB: T16-F4).
    public static func size(ofColumnName name: String) -> Int {
        perValueOverhead + jsonStringSize(name)
    }

    /// The bytes of `text` as a JSON string in the SQL route's answer (Foundation's
    /// `JSONEncoder` with `.withoutEscapingSlashes`): its quotes, `"`, `\\`, backspace, form
    /// feed, line feed, carriage return and tab as two bytes, other C0 controls as six
    /// (`\u001f`), every other byte as itself.
    public static func jsonStringSize(_ text: String) -> Int {
        var size = 2
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D: size += 2
            case 0x00...0x1F: size += 6
            default: size += 1
            }
        }
        return size
    }

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
    /// A character that looks blank but is not white space to SQLite (a no-break space, U+2028,
    /// a byte order mark: ``CatbirdStorage/SQLiteError/looksBlank(_:)``) follows the first
    /// statement, which SQLite reads as the start of a second (tester finding tester39a-F10:
    /// `SELECT 1;` and a no-break space was refused as "only one SQL statement is allowed").
    case notBlankToSQLite(Unicode.Scalar)
    /// The statement could change the database or the connection: a write, DDL, `ATTACH`,
    /// a transaction statement, or a `PRAGMA` outside the read-only introspection list.
    case notReadOnly
    /// The statement runs or reads a pragma hidden from queries (`PRAGMA database_list`,
    /// `pragma_database_list`: it names the database file's path on the server).
    case pragmaNotAvailable(name: String)
    /// A tenant-scoped query ran or read `name`, which reports on the whole database every
    /// tenant shares or on another tenant: the pragmas `data_version`, `freelist_count` and
    /// `page_count` (other tenants' write volume), or a function only the scoped views call
    /// (`catbird_journal_floor()`, which took any tenant's id; try6b finding 1).
    case notAvailableToTenants(name: String)
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
    /// The column names and the rows read so far would exceed the result size limit of `limit`
    /// bytes (``ReadOnlyQueryResult/size(ofColumnName:)`` and ``ReadOnlyQueryResult/size(of:)``
    /// summed, e.g. 16 MiB); the query was stopped at the row that crossed it, before copying
    /// it out of SQLite when its bytes alone crossed it. `columnNames`: the column names alone
    /// cross it (an unnamed expression's text is its column's name).
    case resultTooLarge(limit: Int, columnNames: Bool = false)
    /// The query needed more than `limit` bytes of SQLite's memory at once (many large values
    /// held together, e.g. ten columns of `hex(zeroblob(30000000))`); it was stopped when an
    /// allocation would have passed the limit (``CatbirdStorage/SQLiteMemoryBudget``);
    /// `compiling`: while the statement was compiled (it is itself too large: CTEs copied at
    /// each use, or a list of millions of values written into it).
    case memoryLimit(limit: Int, compiling: Bool = false)
    /// One call of the SQL function `function` (e.g. `instr`) would take longer than SQLite
    /// can be interrupted for: its arguments' lengths multiply past its bound (`reason` says
    /// by how much; docs/protocol.md#sql). It was refused before it ran.
    case functionTooCostly(function: String, reason: String)
    /// SQLite refused the statement (e.g. a syntax error or unknown table) or failed running it.
    case sqlite(SQLiteError)

    /// One readable line, fit for an HTTP 400 body.
    public var description: String {
        switch self {
        case .empty:
            return "no SQL statement given"
        case .multipleStatements:
            return "only one SQL statement is allowed"
        case .notBlankToSQLite(let scalar):
            return "the SQL holds \(scalar.codePointText) after its statement, which SQLite does not read as white space (only "
                + "space, tab, line feed, carriage return and form feed are) but as the start of a second statement, and only "
                + "one is allowed: remove it"
        case .notReadOnly:
            return "only read-only statements are allowed (SELECT, WITH … SELECT, VALUES, "
                + "and introspection pragmas such as table_info)"
        case .pragmaNotAvailable(let name):
            return "the pragma \(name) is not available: it would show where the server keeps its database file"
        case .notAvailableToTenants(let name):
            return "\(name) is not available to tenant-scoped queries: it reports on the database every tenant shares, "
                + "or on another tenant"
        case .parameterCountMismatch(let expected, let given):
            return "the statement has \(expected) parameter(s) but \(given) value(s) were given"
        case .timedOut(let milliseconds):
            return "the query was interrupted after its time limit of \(milliseconds) ms"
        case .outsideTenantScope(let table, let scopedTables):
            return "\(table) is not available to tenant-scoped queries; read \(Self.list(scopedTables)) "
                + "through their unqualified names, which show only the caller's tenant's rows"
        case .valueTooLarge(let limit):
            return "a string or blob would exceed the limit of \(Self.size(limit)) per value"
        case .resultTooLarge(let limit, true):
            // tester57a-F5: `SELECT length('<20 MB literal>')` was told to select fewer rows or columns.
            // tester58a-F6: the advice fits only an unnamed column, so it is said as such.
            return "the result's column names alone exceed \(Self.shortSize(limit)): shorten them; a column without an AS name is "
                + "named by its expression's text, so name it (SELECT length(?) AS n) or pass a long literal as a parameter"
        case .resultTooLarge(let limit, false):
            return "the result exceeds \(Self.shortSize(limit)); select fewer rows or columns, or use substr()"
        case .memoryLimit(let limit, false):
            return "the query needs more than \(Self.shortSize(limit)) of memory at once (the limit per query); "
                + "hold fewer large values together, or use substr() or length()"
        case .memoryLimit(let limit, true):
            return "compiling the statement needs more than \(Self.shortSize(limit)) of memory at once (the limit per query): "
                + "SQLite copies a CTE (WITH) into each place that names it, so CTEs that each name the one before more than "
                + "once double with every level; a list of many values is better passed as one parameter and read with "
                + "json_each(?)"
        case .functionTooCostly(_, let reason):
            return reason
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

    /// `16 MiB` for whole mebibytes, `1000 bytes` otherwise.
    private static func shortSize(_ bytes: Int) -> String {
        let mebibyte = 1 << 20
        return bytes >= mebibyte && bytes % mebibyte == 0 ? "\(bytes / mebibyte) MiB" : "\(bytes) bytes"
    }

    /// `67108864 bytes (64 MiB)`; whole mebibytes only, else just the bytes.
    private static func size(_ bytes: Int) -> String {
        let mebibyte = 1 << 20
        return bytes >= mebibyte && bytes % mebibyte == 0
            ? "\(bytes) bytes (\(bytes / mebibyte) MiB)" : "\(bytes) bytes"
    }
}
