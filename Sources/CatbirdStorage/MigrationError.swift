/// Why `Migrator.migrate` refused to run or stopped.
public enum MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The database records version `found`, above `latestKnown`, the newest version this
    /// binary carries: it was migrated by a newer build, whose schema this one may misread.
    case newerDatabase(found: Int, latestKnown: Int)
    /// The database records version `found`, not above the newest known but absent from this
    /// binary's migrations (a migration file was removed or renumbered).
    case unknownVersion(found: Int)
    /// The database has tables (`tables`, sorted) but no `schema_migrations`: another
    /// program's database, which migrating would change.
    case foreignDatabase(tables: [String])
    /// The database is another program's though it passes the first test: its
    /// `schema_migrations` is another migrator's (Rails, golang-migrate, dbmate and Ecto keep
    /// one), or it has no tables but another program's `application_id` or `user_version`.
    /// `tables` (sorted) may be empty; `detail` says what told it.
    case otherProgramsDatabase(tables: [String], detail: String)
    /// Migration `version` (`name`) failed with the given SQLite error; it was rolled back, so
    /// neither its changes nor its `schema_migrations` row remain. Earlier ones stay applied.
    case failed(version: Int, name: String, SQLiteError)

    /// One readable line saying what happened and what to do.
    public var description: String {
        switch self {
        case .newerDatabase(let found, let latestKnown):
            return "database schema is at version \(found) but this catbird knows migrations up to "
                + "\(latestKnown) only; refusing to run — use a newer catbird or another database file"
        case .unknownVersion(let found):
            return "database records migration version \(found), which this catbird does not have; "
                + "refusing to run — migrations are forward-only and must never be removed or renumbered"
        case .foreignDatabase(let tables):
            return "the file is an SQLite database of another program (tables \(tables.prefix(5).joined(separator: ", "))"
                + "\(tables.count > 5 ? ", …" : ""), no schema_migrations); refusing to change it — choose another --db"
        case .otherProgramsDatabase(let tables, let detail):
            let listed = tables.isEmpty ? "no tables" : "tables \(tables.prefix(5).joined(separator: ", "))\(tables.count > 5 ? ", …" : "")"
            return "the file is an SQLite database of another program (\(listed); \(detail)); refusing to change it — choose another --db"
        case .failed(let version, let name, let error):
            return "migration \(name) (version \(version)) failed and was rolled back: \(error)"
        }
    }
}
