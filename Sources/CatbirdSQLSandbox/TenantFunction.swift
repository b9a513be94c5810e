import CatbirdStorage
import CSQLite

/// The tenant of the query running on a `TenantScopedReader`, handed to SQL as a function of no
/// arguments (the scope's `tenantFunction`, e.g. `catbird_tenant()`) that the scoping views
/// compare each row's tenant column with.
///
/// `current` is `nil` between queries, and the function then returns `NULL`, which equals no
/// tenant: a view read outside `TenantScopedReader.query` shows no rows.
///
/// Not Sendable: set and read only under the reader's lock, on the thread running the query.
final class TenantFunction {
    /// The tenant of the running query; `nil` between queries.
    var current: String?

    /// Registers `name()` on `database` with `sqlite3_create_function_v2`
    /// (<https://www.sqlite.org/c3ref/create_function.html>). The C callback captures nothing:
    /// it finds this object through the function's user-data pointer
    /// (<https://www.sqlite.org/c3ref/user_data.html>), which holds a retain released by the
    /// destroy callback when the connection closes (or at once if registration fails).
    ///
    /// The function is flagged `SQLITE_DETERMINISTIC`: its value is fixed for the whole run of
    /// a statement, so SQLite may evaluate it once per run and use it to search the tenant
    /// column's index. It is never cached across runs.
    ///
    /// - Throws: `SQLiteError` when SQLite refuses the registration (e.g. `SQLITE_BUSY` while a
    ///   statement runs, or `SQLITE_MISUSE` for an invalid name).
    func register(as name: String, on database: Database) throws(SQLiteError) {
        let handle = database.connection.open("Database")
        let userData = Unmanaged.passRetained(self).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, userData,
            { context, _, _ in
                guard let context else { return }
                let function = Unmanaged<TenantFunction>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                guard let tenant = function.current else {
                    sqlite3_result_null(context)
                    return
                }
                // An explicit byte length: the empty default tenant stays '' (not NULL) and any
                // NUL inside a tenant id is kept.
                tenant.withCString { text in
                    catbird_sqlite3_result_text_transient(context, text, Int32(tenant.utf8.count))
                }
            },
            nil, nil,
            { userData in
                guard let userData else { return }
                Unmanaged<TenantFunction>.fromOpaque(userData).release()
            }
        )
        guard status == SQLITE_OK else {
            throw SQLiteError.current(handle, code: status, sql: nil)
        }
    }
}
