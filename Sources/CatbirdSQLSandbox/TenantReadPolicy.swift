import CatbirdStorage
/// Which table reads a tenant-scoped statement may make: the `SQLITE_READ` half of the
/// authorizer (<https://www.sqlite.org/c3ref/set_authorizer.html>) used by `TenantScopedReader`.
///
/// SQLite reports each read with the table, its schema (`main`, `temp`) and the name of the
/// inner-most view or trigger *or common table expression* enclosing the read. That last name
/// is chosen by whoever writes the `FROM` clause: `WITH requests AS (SELECT * FROM
/// main.requests) SELECT * FROM requests` reports the same name, `requests`, as a read through
/// the temp view `requests`. So the name alone cannot tell the scoping views from user SQL.
/// Hence two passes over the same statement:
///
/// - `.inspection` compiles it on a connection whose temp objects `requests`, `mocks`, … are
///   empty tables with the same columns. Names resolve exactly as on the executing connection
///   (unqualified: a CTE, else `temp`, else `main`), so any read of a scoped `main` table there
///   is the user's own, and is refused whatever name SQLite reports.
/// - `.execution` compiles it again on the connection whose temp views read the `main` tables
///   filtered by tenant. It allows scoped reads that come through one of those views, a second
///   line of defence that on its own refuses direct reads of a scoped table outside a CTE or
///   view. It does not on its own refuse reads of the tables behind a scoped view of `main`
///   (``TenantScope/Table/storedIn``, e.g. `journal_rows` behind `requests`): a CTE named like
///   the view (`WITH requests AS (SELECT * FROM main.journal_rows) …`) reports the view's name,
///   and no-column notices for those tables are allowed here; the inspection pass refuses both.
///
/// Outside the scoped tables, column reads are allowed, whatever the enclosing name, only in the
/// `temp` schema (the views and `sqlite_temp_schema`) and, in `main`, of the schema table
/// (`sqlite_schema`), the scope's shared tables, and the table-valued functions `json_each`,
/// `json_tree` and `pragma_*` (schema only; `ReadOnlyQueryGuard` has already refused every
/// pragma function outside its introspection list before this policy is asked). Everything else is refused: tables not listed in
/// the scope, even ones created after the reader opened (`sqlite_stat1` and `sqlite_sequence`
/// summarise every tenant's rows), and virtual tables such as `dbstat` (page statistics).
///
/// A scoped name may be a view of `main` (``TenantScope/Table/storedIn``): its tables are read
/// with the view's name as context, allowed in the execution pass only, like the scoped tables.
///
/// A read with no schema is SQLite's notice that a `FROM` item is used but none of its columns
/// (`SELECT COUNT(*) FROM x`), naming the item and its schema as written: no schema means an
/// unqualified name. It reads nothing itself (the item's own reads are reported apart), and an
/// unqualified scoped name resolves to the temp view or a CTE, never to the `main` table. Such
/// a notice could only reveal the row count of a private table, so it is refused for the
/// tables of `main` outside the scope when the reader opened and SQLite's internal tables.
///
/// Table and view names compare ASCII case-insensitively, as SQLite compares them.
struct TenantReadPolicy {
    /// Which pass this policy judges; see the type's documentation.
    enum Pass {
        case inspection
        case execution
    }

    let pass: Pass
    /// The scoped tables' names as the scope spells them, for error messages.
    let scopedTableNames: [String]
    /// The scoped tables' names, lowercased.
    private let scopedTables: Set<String>
    /// The scoped tables' names as the scope spells them, by their lowercased names.
    private let scopedNames: [String: String]
    /// The `main` tables behind scoped names that are views (``TenantScope/Table/storedIn``),
    /// lowercased: read only through such a view.
    private let storageTables: Set<String>
    /// Unscoped names readable outside `temp`, lowercased: the shared tables, the schema table
    /// and the JSON table-valued functions; plus any name starting with `pragma_`.
    private let directlyReadable: Set<String>
    /// Tables whose row count stays private, lowercased: see the type's documentation.
    private let privateTables: Set<String>
    /// Functions only the scoped views may call (``TenantScope/viewOnlyFunctions``), lowercased.
    let viewOnlyFunctions: Set<String>
    /// SQLite's own tables and page-level virtual tables that summarise every tenant's rows, and
    /// `sqlite_stmt`, the connection's prepared statements (a pooled connection's, so possibly
    /// another tenant's; its `COUNT(*)` passed: tester29a's note of 2026-12-05).
    private static let internalTables: Set<String> = [
        "sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4", "dbstat", "sqlite_dbpage", "sqlite_stmt",
    ]

    /// The virtual tables among ``internalTables`` that need no `CREATE` (SQLite's eponymous
    /// ones): reachable in any schema, `temp` included.
    private static let eponymousTables: Set<String> = ["dbstat", "sqlite_dbpage", "sqlite_stmt"]

    /// - Parameter mainTables: the names of `main`'s tables (`sqlite_schema` rows of type `table`).
    init(pass: Pass, scope: TenantScope, mainTables: [String]) {
        self.pass = pass
        scopedTableNames = scope.tables.map(\.name)
        scopedTables = Set(scope.tables.map { Self.folded($0.name) })
        scopedNames = Dictionary(scope.tables.map { (Self.folded($0.name), $0.name) }, uniquingKeysWith: { first, _ in first })
        storageTables = Set(scope.tables.flatMap(\.storedIn).map(Self.folded))
        directlyReadable = Set(
            (scope.sharedTables + ["sqlite_master", "sqlite_schema", "json_each", "json_tree"]).map(Self.folded))
        viewOnlyFunctions = Set(scope.viewOnlyFunctions.map(Self.folded))
        privateTables = Self.internalTables.union(mainTables.map(Self.folded))
            .subtracting(scopedTables).subtracting(directlyReadable)
    }

    /// `nil` when the read is allowed; else the table as the refusal names it, e.g.
    /// `main.requests`.
    /// - Parameters:
    ///   - table: the table read (the authorizer's third argument).
    ///   - database: its schema, `main` or `temp`; `nil` in a no-column notice for an
    ///     unqualified name.
    ///   - context: the inner-most view, trigger or common table expression around the read.
    func violation(table: String, database: String?, context: String?) -> String? {
        let name = Self.folded(table)
        guard let database else {
            // A scoped view's notice for a table it joins without reading it (`COUNT(*)`), which
            // SQLite gives without the view's name (migration 0010's `requests` joined
            // journal_bodies so; 0011's reads it in scalar subqueries, which give none); the
            // inspection pass refuses the user's own.
            if pass == .execution, storageTables.contains(name) { return nil }
            return privateTables.contains(name) ? table : nil
        }
        // A table behind a scoped view is named as the view it was read through, when it was.
        let shown = storageTables.contains(name) ? context.flatMap { scopedNames[Self.folded($0)] } : nil
        let qualified = "\(database).\(shown ?? table)"
        // SQLite's eponymous virtual tables exist in every schema: `temp.dbstat` is `dbstat`
        // (tester finding tester29c-F1, F5: `SELECT count(*) FROM temp.sqlite_stmt` and
        // `temp.dbstat`, the shared file's page count, passed as temp objects).
        if Self.eponymousTables.contains(name) { return qualified }
        // Else the temp schema holds only the scope's views or stand-in tables (and its own
        // schema table). A no-column notice names the schema as written, but `temp.x` can only
        // be a temp object.
        if Self.folded(database) == "temp" { return nil }
        // A scoped view of `main` reads its tables with its own name as the context; in the
        // inspection pass the scoped names are stand-in tables, so such a read is the user's own.
        if scopedTables.contains(name) || storageTables.contains(name) {
            switch pass {
            case .inspection:
                return qualified
            case .execution:
                let throughView = context.map { scopedTables.contains(Self.folded($0)) } ?? false
                return throughView ? nil : qualified
            }
        }
        if directlyReadable.contains(name) || name.hasPrefix("pragma_") { return nil }
        return qualified
    }

    /// `name` with ASCII letters lowercased, as SQLite folds identifiers (`sqlite3StrICmp`);
    /// other characters are kept.
    static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
