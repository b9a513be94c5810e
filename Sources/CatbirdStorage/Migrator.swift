import CSQLite

/// Brings a database's schema up to date with a list of migrations.
public enum Migrator {
    /// Checks that `db` is empty or managed by a migrator (it has `schema_migrations`); reads
    /// only, so it may run on a read-only connection before anything is written.
    /// - Throws: `MigrationError.foreignDatabase` listing the tables of another program's
    ///   database; `SQLiteError` when the file cannot be read (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public static func checkOwnership(_ db: Database) throws {
        let tables = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0[0].stringValue }
        if !tables.isEmpty && !tables.contains("schema_migrations") {
            throw MigrationError.foreignDatabase(tables: tables.sorted())
        }
    }

    /// Applies the pending migrations of `migrations` to `db` and returns their versions, in
    /// ascending order; `[]` when the database was already up to date.
    ///
    /// Creates `schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL,
    /// applied_at TEXT NOT NULL)` if missing (`applied_at`: UTC ISO 8601 with milliseconds).
    /// Each pending migration runs in its own `BEGIN IMMEDIATE` transaction together with the
    /// insertion of its row, so a failure leaves neither; a version recorded by a concurrent
    /// process meanwhile is skipped. Pending versions below the highest applied one are
    /// applied too (in ascending order).
    ///
    /// Foreign keys are off while migrations run (and on again afterwards), so a migration can
    /// rebuild a table the SQLite way (create new, copy, drop old, rename) without `ON DELETE
    /// CASCADE` emptying the tables that reference it; `PRAGMA foreign_key_check` must then
    /// find no violation before the migration commits, on the tables the migration changed and
    /// those referring to them (``foreignKeyViolations(_:after:)``: none for a migration that
    /// only builds indexes). A migration that ends the transaction itself (`COMMIT`, `BEGIN`)
    /// is refused.
    ///
    /// `migrations` need not be sorted; duplicate versions are a programmer error and trap.
    /// `db` must be `.readWrite` and not inside a transaction.
    ///
    /// - Throws: `MigrationError.foreignDatabase` before changing anything when the database
    ///   has tables but no `schema_migrations` (it belongs to something else);
    ///   `MigrationError.newerDatabase` or `.unknownVersion` before changing anything
    ///   when the database records a version absent from `migrations`;
    ///   `MigrationError.failed` when a migration's SQL fails; `SQLiteError` when the
    ///   bookkeeping table cannot be created or read.
    @discardableResult
    public static func migrate(_ db: Database, migrations: [Migration]) throws -> [Int] {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) {
            precondition(previous.version != next.version, "duplicate migration version \(next.version)")
        }
        try checkOwnership(db)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    INTEGER PRIMARY KEY,
                name       TEXT NOT NULL,
                applied_at TEXT NOT NULL
            )
            """)
        let recorded = try db.query("SELECT version FROM schema_migrations ORDER BY version")
            .compactMap { $0[0].intValue.map(Int.init) }
        let known = Set(sorted.map(\.version))
        let latestKnown = sorted.last?.version ?? 0
        if let newest = recorded.last, newest > latestKnown {
            throw MigrationError.newerDatabase(found: newest, latestKnown: latestKnown)
        }
        if let unknown = recorded.first(where: { !known.contains($0) }) {
            throw MigrationError.unknownVersion(found: unknown)
        }

        // Must be set outside a transaction to take effect (https://www.sqlite.org/foreignkeys.html).
        try db.execute("PRAGMA foreign_keys=OFF")
        defer { try? db.execute("PRAGMA foreign_keys=ON") }
        var applied: [Int] = []
        for migration in sorted where !recorded.contains(migration.version) {
            do {
                let didApply = try db.transaction { () throws -> Bool in
                    let version = SQLiteValue.integer(Int64(migration.version))
                    let alreadyThere = try db.query("SELECT 1 FROM schema_migrations WHERE version = ?", [version])
                    guard alreadyThere.isEmpty else { return false }
                    let changed = try executeNotingChanges(db, migration.sql)
                    guard db.isInTransaction else {
                        throw SQLiteError(code: SQLITE_MISUSE, message: "the migration ended the transaction itself (BEGIN/COMMIT/ROLLBACK are not allowed in a migration)", sql: nil)
                    }
                    let violations = try foreignKeyViolations(db, after: changed)
                    guard violations.isEmpty else {
                        throw SQLiteError(code: SQLITE_CONSTRAINT, message: "the migration leaves \(violations.count) foreign key violation(s), first in table \(violations[0][0].stringValue ?? "?")", sql: nil)
                    }
                    try db.run(
                        """
                        INSERT INTO schema_migrations (version, name, applied_at)
                        VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                        """,
                        [version, .text(migration.name)]
                    )
                    return true
                }
                if didApply { applied.append(migration.version) }
            } catch let error as SQLiteError {
                throw MigrationError.failed(version: migration.version, name: migration.name, error)
            }
        }
        return applied
    }
}
