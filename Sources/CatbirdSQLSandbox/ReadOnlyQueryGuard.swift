import CatbirdStorage
import CSQLite

/// The state behind one `readOnlyQuery` call, reached from SQLite's C callbacks through their
/// `void*` argument: the authorizer policy applied while compiling, and the deadline checked
/// by the progress handler while running.
///
/// Not Sendable: SQLite invokes both callbacks synchronously on the thread running the query.
final class ReadOnlyQueryGuard {
    /// When the progress handler interrupts the query.
    let deadline: ContinuousClock.Instant
    /// For tenant-scoped queries, which table reads are allowed; `nil` allows every read.
    let readPolicy: TenantReadPolicy?
    /// Set when the authorizer denied an action other than a read; turns SQLITE_AUTH into
    /// `.notReadOnly`.
    private(set) var deniedAction = false
    /// The first read `readPolicy` refused, e.g. `main.requests`; turns SQLITE_AUTH into
    /// `.outsideTenantScope` unless `deniedAction` is set too.
    private(set) var scopeViolation: String?
    /// The hidden pragma (``hiddenPragmas``) the statement ran or read, e.g. `database_list`;
    /// turns SQLITE_AUTH into `.pragmaNotAvailable`, whatever else was refused.
    private(set) var hiddenPragma: String?
    /// What a tenant-scoped statement ran or read that reports beyond its tenant
    /// (``wholeDatabasePragmas``, a view-only function), e.g. `page_count`; turns SQLITE_AUTH
    /// into `.notAvailableToTenants`.
    private(set) var beyondTenant: String?
    /// Set when the progress handler interrupted the query; turns SQLITE_INTERRUPT into `.timedOut`.
    private(set) var timedOut = false

    init(deadline: ContinuousClock.Instant, readPolicy: TenantReadPolicy? = nil) {
        self.deadline = deadline
        self.readPolicy = readPolicy
    }

    /// The error for a compile failure seen under this guard: the authorizer's reason when it
    /// denied something, else SQLite's own `error`.
    func refusal(for error: SQLiteError) -> ReadOnlyQueryError {
        if let hiddenPragma { return .pragmaNotAvailable(name: hiddenPragma) }
        if let beyondTenant { return .notAvailableToTenants(name: beyondTenant) }
        if deniedAction { return .notReadOnly }
        // A write to a view of `main` (e.g. `DELETE FROM main.requests`) fails while compiling,
        // before the authorizer is asked (SQLite 3.40 sqlite3IsReadOnly: "cannot modify %s
        // because it is a view"); it is still a write.
        if error.message.hasPrefix("cannot modify "), error.message.hasSuffix(" because it is a view") { return .notReadOnly }
        if let scopeViolation, let readPolicy {
            return .outsideTenantScope(table: scopeViolation, scopedTables: readPolicy.scopedTableNames)
        }
        return .sqlite(error)
    }

    /// Built-in functions refused whatever their arguments (docs/protocol.md#sql): they load
    /// code, hand out or take raw pointers, write, or parse blobs as internal structures.
    /// `load_extension` (off on every connection too, ``CatbirdStorage/Database/init(path:mode:)``);
    /// `fts3_tokenizer` (with one argument it returns a tokenizer's address in the server's
    /// memory, with two it installs any address as a tokenizer; its two-argument form is off on
    /// every connection too); `fts5` (takes a pointer); `optimize` (rewrites an FTS table);
    /// `sqlite_log` (writes to SQLite's error log); `rtreenode`, `rtreedepth` and `rtreecheck`
    /// (debugging functions that parse any blob as an R*Tree node or read an R*Tree's shadow
    /// tables). SQLite's advice for untrusted SQL: <https://www.sqlite.org/security.html>.
    static let deniedFunctions: Set<String> = [
        "load_extension", "fts3_tokenizer", "fts5", "optimize", "sqlite_log", "rtreenode", "rtreedepth", "rtreecheck",
    ]

    /// Pragmas that only report: allowed with no argument, e.g. `PRAGMA user_version`.
    /// (Setting one, `PRAGMA user_version = 3`, passes an argument and is denied.)
    private static let reportingPragmas: Set<String> = [
        "application_id", "collation_list", "compile_options", "data_version",
        "encoding", "foreign_keys", "freelist_count", "function_list", "module_list",
        "page_count", "page_size", "pragma_list", "schema_version", "user_version",
    ]
    /// Pragmas refused both as a statement and as a table-valued function (`pragma_<name>`):
    /// `database_list` reports the database file's path on the server, which no query's
    /// author needs and a shared server must not tell its tenants (docs/protocol.md#sql).
    static let hiddenPragmas: Set<String> = ["database_list"]
    /// Reporting pragmas refused to tenant-scoped queries (as statements and functions): they
    /// count the whole file's pages or changes, so a tenant could watch other tenants' write
    /// volume (try6b finding 1).
    static let wholeDatabasePragmas: Set<String> = ["data_version", "freelist_count", "page_count"]
    /// Pragmas whose argument names a table or index to describe: allowed with an argument.
    private static let describingPragmas: Set<String> = [
        "foreign_key_list", "index_info", "index_list", "index_xinfo", "table_info",
        "table_list", "table_xinfo",
    ]

    /// The authorizer decision (<https://www.sqlite.org/c3ref/set_authorizer.html>) for one
    /// action met while compiling: `SQLITE_OK` for reads (`SELECT`, reading a column,
    /// functions, recursive CTEs) and allowed pragmas (as statements and as table-valued
    /// functions, ``pragmaDecision(_:argument:)``), `SQLITE_DENY` for everything else.
    /// With a `readPolicy`, a column read (`SQLITE_READ`; `detail1` the table, `database` its
    /// schema, `context` the inner-most view, trigger or CTE) must also pass that policy.
    ///
    /// One exception: setting up a table-valued pragma function (`pragma_table_info('t')`)
    /// makes SQLite check `SQLITE_UPDATE` on `sqlite_master`'s columns, so that is allowed; a
    /// real `UPDATE sqlite_master` is still refused, by the `sqlite3_stmt_readonly` check.
    func authorize(
        action: Int32, detail1: UnsafePointer<CChar>?, detail2: UnsafePointer<CChar>?,
        database: UnsafePointer<CChar>?, context: UnsafePointer<CChar>?
    ) -> Int32 {
        switch action {
        case SQLITE_READ:
            // A pragma's table-valued function is read as the table `pragma_<name>` (a common
            // table expression is never reported under its own name). It prepares its own
            // `PRAGMA` when the statement runs, after this authorizer is removed, so it is
            // judged here by the statement form's lists: `pragma_quick_check` and
            // `pragma_foreign_key_check` would otherwise read every tenant's rows.
            if let detail1, let pragma = Self.pragmaFunction(read: detail1) {
                return pragmaDecision(pragma, argument: false)
            }
            guard let readPolicy, let detail1 else { return SQLITE_OK }
            let violation = readPolicy.violation(
                table: String(cString: detail1), database: database.map { String(cString: $0) },
                context: context.map { String(cString: $0) })
            guard let violation else { return SQLITE_OK }
            if scopeViolation == nil { scopeViolation = violation }
            return SQLITE_DENY
        case SQLITE_SELECT, SQLITE_RECURSIVE:
            return SQLITE_OK
        case SQLITE_UPDATE:
            let table = detail1.map { String(cString: $0).lowercased() }
            return table == "sqlite_master" ? SQLITE_OK : deny()
        case SQLITE_FUNCTION:
            let name = detail2.map { TenantReadPolicy.folded(String(cString: $0)) }
            // A view-only function called from the statement itself, not from inside a view.
            if let name, context == nil, readPolicy?.viewOnlyFunctions.contains(name) == true {
                return refuseBeyondTenant("\(name)()")
            }
            return name.map(Self.deniedFunctions.contains) == true ? deny() : SQLITE_OK
        case SQLITE_PRAGMA:
            guard let detail1 else { return deny() }
            let pragma = TenantReadPolicy.folded(String(cString: detail1))
            return pragmaDecision(pragma, argument: detail2 != nil)
        default:
            return deny()
        }
    }

    /// The progress handler's answer (<https://www.sqlite.org/c3ref/progress_handler.html>):
    /// non-zero, interrupting the statement, once the deadline has passed.
    func progress() -> Int32 {
        if ContinuousClock.now >= deadline {
            timedOut = true
            return 1
        }
        return 0
    }

    private func deny() -> Int32 {
        deniedAction = true
        return SQLITE_DENY
    }

    /// The decision for `pragma` (folded as SQLite folds identifiers), as a `PRAGMA` statement
    /// (`argument` when it has one) or as a table-valued function `pragma_<name>` (judged as
    /// without one): a hidden pragma is refused with its own reason, a describing one is
    /// allowed, a reporting one is allowed without an argument, anything else is refused as
    /// `.notReadOnly`, e.g. `pragma_quick_check`. (Only pragmas without side effects have a
    /// function, <https://www.sqlite.org/pragma.html#pragfunc>, so its arguments never set
    /// anything.)
    private func pragmaDecision(_ pragma: String, argument: Bool) -> Int32 {
        if Self.hiddenPragmas.contains(pragma) { return hide(pragma) }
        if readPolicy != nil, Self.wholeDatabasePragmas.contains(pragma) { return refuseBeyondTenant("the pragma \(pragma)") }
        if Self.describingPragmas.contains(pragma) { return SQLITE_OK }
        if !argument && Self.reportingPragmas.contains(pragma) { return SQLITE_OK }
        return deny()
    }

    private func refuseBeyondTenant(_ name: String) -> Int32 {
        if beyondTenant == nil { beyondTenant = name }
        return SQLITE_DENY
    }

    private func hide(_ pragma: String) -> Int32 {
        if hiddenPragma == nil { hiddenPragma = pragma }
        return SQLITE_DENY
    }

    /// The pragma whose table-valued function `table` is, lowercased (`pragma_Table_Info` →
    /// `table_info`), or nil when `table` does not start with `pragma_` in any ASCII case.
    private static func pragmaFunction(read table: UnsafePointer<CChar>) -> String? {
        let name = TenantReadPolicy.folded(String(cString: table))
        guard name.hasPrefix("pragma_") else { return nil }
        return String(name.dropFirst("pragma_".count))
    }
}
