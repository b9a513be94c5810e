import CSQLite
import CatbirdSupport

/// Brings a database's schema up to date with a list of migrations.
public enum Migrator {
    /// Checks that `db` is empty or this migrator's (its `schema_migrations` has this
    /// migrator's columns and names each of `migrations`' versions it records as they are
    /// named); reads only, so it may run on a read-only connection before anything is written.
    /// The SQLite header's `application_id` and `user_version`, which this migrator never sets,
    /// must be 0 (tester finding tester68b-F2: an empty file another program had stamped was
    /// taken over).
    /// - Parameter migrations: the migrations whose recorded names are compared; empty: none.
    /// - Throws: `MigrationError.foreignDatabase` listing the tables of another program's
    ///   database without `schema_migrations`; `MigrationError.otherProgramsDatabase` when its
    ///   `schema_migrations` is another migrator's (tester finding tester68b-F1: a Rails
    ///   database was switched to WAL and failed with a raw SQL error, and one whose table
    ///   recorded version 1 was migrated from version 2 on) or it carries another program's
    ///   stamp; `SQLiteError` when the file cannot be read (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public static func checkOwnership(_ db: Database, migrations: [Migration] = []) throws {
        let tables = try db.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .compactMap { $0[0].stringValue }.sorted()
        let applicationID = try db.query("PRAGMA application_id").first?[0].intValue ?? 0
        let userVersion = try db.query("PRAGMA user_version").first?[0].intValue ?? 0
        if applicationID != 0 || userVersion != 0 {
            throw MigrationError.otherProgramsDatabase(
                tables: tables, detail: "its header's application_id is \(applicationID) and user_version \(userVersion), which Catbird never sets")
        }
        guard !tables.isEmpty else { return }
        guard tables.contains("schema_migrations") else { throw MigrationError.foreignDatabase(tables: tables) }
        let columns = try db.query("SELECT name FROM pragma_table_info('schema_migrations') ORDER BY cid").compactMap { $0[0].stringValue }
        guard Set(columns).isSuperset(of: ["version", "name", "applied_at"]) else {
            throw MigrationError.otherProgramsDatabase(
                tables: tables, detail: "its schema_migrations has the columns \(columns.joined(separator: ", ")), another migrator's, not version, name, applied_at")
        }
        let named = Dictionary(migrations.map { ($0.version, $0.name) }, uniquingKeysWith: { first, _ in first })
        for row in try db.query("SELECT version, name FROM schema_migrations ORDER BY version") {
            guard let version = row[0].intValue.map(Int.init), let known = named[version] else { continue }
            let recorded = row[1].stringValue ?? ""
            if recorded != known {
                throw MigrationError.otherProgramsDatabase(
                    tables: tables,
                    detail: "its schema_migrations records version \(version) as \(JSONText.shortString(recorded)), another migrator's, not \(known)")
            }
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
        try checkOwnership(db, migrations: sorted)
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
