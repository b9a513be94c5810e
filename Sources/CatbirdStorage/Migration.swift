/// One forward-only schema change: a numbered SQL script.
///
/// The binary carries the package's `migrations/NNNN_name.sql` files as `Migration.embedded`,
/// generated at build time by the EmbedMigrations plugin; no file is read at run time.
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
