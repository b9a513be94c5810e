/// One forward-only schema change: a numbered SQL script.
///
/// The application owns its migrations and passes them to ``Migrator/migrate(_:migrations:)``
/// (Catbird's are `Schema.migrations` in CatbirdDomain, embedded from `migrations/` at build time).
public struct Migration: Sendable, Equatable {
    /// The number from the file name's four leading digits (`1` for `0001_initial.sql`);
    /// unique, applied in ascending order.
    public let version: Int
    /// The file name without `.sql`, e.g. `0001_initial`; recorded in `schema_migrations`.
    public let name: String
    /// The script, one or more `;`-separated statements. It must not contain `BEGIN`,
    /// `COMMIT` or `ROLLBACK`: `Migrator` runs it inside its own transaction, with foreign keys
    /// off (so a table can be rebuilt) and checked before commit.
    public let sql: String

    /// A migration; `version` must be positive (traps otherwise).
    public init(version: Int, name: String, sql: String) {
        precondition(version > 0, "migration version must be positive, got \(version)")
        self.version = version
        self.name = name
        self.sql = sql
    }
}
