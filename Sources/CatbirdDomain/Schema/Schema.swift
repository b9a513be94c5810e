import CatbirdSQLSandbox
import CatbirdStorage

/// Catbird's database schema, owned here rather than by the SQLite layer: the numbered scripts
/// of the repository's `migrations/` folder (embedded at build time as ``migrations`` by the
/// EmbedMigrations plugin) and the tables user SQL may read (docs/schema.md#tables,
/// docs/schema.md#migrations).
public enum Schema {
    /// Brings `db` up to date with ``migrations``.
    ///
    /// - Returns: the versions applied, ascending; `[]` when it was up to date.
    /// - Throws: `MigrationError` (a newer or unknown recorded version, a failing script) or
    ///   `SQLiteError`, as ``Migrator/migrate(_:migrations:)``.
    @discardableResult
    public static func migrate(_ db: Database) throws -> [Int] {
        try Migrator.migrate(db, migrations: migrations)
    }

    /// Whether ``migrate(_:)`` has anything to apply to `db`: true when `db` records no
    /// version yet (new, or not migrated) or lacks one of ``migrations``.
    /// - Throws: `SQLiteError`.
    public static func hasPendingMigrations(_ db: Database) throws -> Bool {
        let table = try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
        guard !table.isEmpty else { return true }
        let recorded = Set(try db.query("SELECT version FROM schema_migrations").compactMap { $0[0].intValue.map(Int.init) })
        return migrations.contains { !recorded.contains($0.version) }
    }

    /// The tables `POST /catbird/api/sql` shows, each narrowed to the caller's tenant by its
    /// tenant column (docs/schema.md#sql-names, docs/tenancy.md#isolation); `catbird_tenant()`
    /// returns the caller's parallel id. `schema_migrations` is shared by every tenant.
    public static let tenantScope = TenantScope(
        tables: [
            // Rows being deleted in the background are hidden (JournalDeletions). A view of
            // main since migrations/0010_requests_response_bodies_once.sql.
            .init(
                "requests", tenantColumn: "tenant", visibleRows: "id > catbird_journal_floor(catbird_tenant())",
                storedIn: ["journal_rows", "journal_bodies"]),
            // A view of main since migrations/0014_mock_bodies_in_pieces.sql.
            .init("mocks", tenantColumn: "tenant", storedIn: ["mock_rows", "mock_body_pieces"]),
            .init("tenants", tenantColumn: "id"),
        ],
        sharedTables: ["schema_migrations"],
        tenantFunction: "catbird_tenant", viewOnlyFunctions: ["catbird_journal_floor"])
}
