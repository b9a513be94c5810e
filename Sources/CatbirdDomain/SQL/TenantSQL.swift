import CatbirdSQLSandbox
import CatbirdStorage

/// User SQL over one tenant's rows (`POST /catbird/api/sql`, docs/protocol.md#sql): a
/// ``TenantScopedReader`` on the schema's ``Schema/tenantScope``, run after the journal is
/// flushed so that the query sees every request answered before it.
public final class TenantSQL: Sendable {
    private let reader: TenantScopedReader
    private let journal: Journal

    /// Opens the SQL connections on the migrated database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file, already migrated (the connections shadow its tables).
    ///   - maxValueLength: the largest string, blob or row a query may build or read, in bytes.
    ///   - journal: the journal to flush before each query.
    /// - Throws: `SQLiteError` when the connections cannot be opened.
    public init(path: String, maxValueLength: Int, journal: Journal) throws {
        reader = try TenantScopedReader(path: path, scope: Schema.tenantScope, maxValueLength: maxValueLength)
        self.journal = journal
    }

    /// Runs one read-only statement over `tenant`'s rows; see
    /// ``TenantScopedReader/query(_:tenant:parameters:maxRows:timeLimit:maxResultSize:)``.
    ///
    /// - Parameters:
    ///   - sql: one read-only statement.
    ///   - tenant: whose rows the tables show.
    ///   - parameters: values bound to the `?` placeholders, in order.
    ///   - maxRows: the most rows returned.
    ///   - timeLimit: how long the query may take, waiting for another query included.
    ///   - maxResultSize: the most bytes of result (``ReadOnlyQueryResult/size(of:)``).
    /// - Throws: `ReadOnlyQueryError`.
    public func query(
        _ sql: String, tenant: TenantID, parameters: [SQLiteValue], maxRows: Int, timeLimit: Duration, maxResultSize: Int
    ) throws(ReadOnlyQueryError) -> ReadOnlyQueryResult {
        journal.flush()
        return try reader.query(
            sql, tenant: tenant.rawValue, parameters: parameters, maxRows: maxRows, timeLimit: timeLimit,
            maxResultSize: maxResultSize)
    }

    /// Closes the connections; later queries fail.
    public func close() {
        reader.close()
    }
}
