import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import XCTest

/// Regression: migrations used to run with foreign keys on, so rebuilding `tenants` the SQLite
/// way (new table, copy, drop, rename) cascaded the drop into every mock and journal row.
final class MigrationForeignKeyTests: StorageTestCase {
    private let rebuildTenants = Migration(version: 9001, name: "9001_rebuild_tenants", sql: """
        CREATE TABLE tenants_new (
            id TEXT PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, last_activity_at TEXT NOT NULL, note TEXT
        ) WITHOUT ROWID;
        INSERT INTO tenants_new (id, created_at, last_activity_at) SELECT id, created_at, last_activity_at FROM tenants;
        DROP TABLE tenants;
        ALTER TABLE tenants_new RENAME TO tenants;
        """)

    private func seed(_ db: Database) throws {
        try db.execute("""
            INSERT INTO tenants VALUES ('p', 'x', 'x');
            INSERT INTO mocks (tenant, position, method, url_kind, url_value, status, created_at)
                VALUES ('p', 1, 'GET', 'equal', '/a', 200, 'x');
            INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms)
                VALUES ('x', 'p', 'GET', '/a', 200, 'mock', 1);
            """)
    }

    func testRebuildingAReferencedTableKeepsTheRowsThatReferenceIt() throws {
        let db = try openMigrated()
        try seed(db)
        XCTAssertEqual(try Migrator.migrate(db, migrations: Schema.migrations + [rebuildTenants]), [9001])
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM mocks"), .integer(1))
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM requests"), .integer(1))
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM tenants WHERE id = 'p'"), .integer(1))
        XCTAssertEqual(try scalar(db, "PRAGMA foreign_keys"), .integer(1), "foreign keys are on again afterwards")
    }

    func testAMigrationLeavingDanglingReferencesIsRolledBack() throws {
        let db = try openMigrated()
        try seed(db)
        let dropTenant = Migration(version: 9002, name: "9002_dangling", sql: "DELETE FROM tenants WHERE id = 'p';")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [dropTenant])) { error in
            XCTAssertTrue("\(error)".contains("foreign key"), "\(error)")
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM tenants WHERE id = 'p'"), .integer(1))
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schema_migrations WHERE version = 9002"), .integer(0))
    }

    /// Regression: every migration ran `PRAGMA foreign_key_check` over every table, so one that
    /// only builds an index (0009) read a large journal whole once more. Now only the tables a
    /// migration changed, and those referring to them, are checked: told apart here by a
    /// journal row left dangling before (with foreign keys off, as `sqlite3` allows), which an
    /// index or a change to `mocks` no longer trips over, while a change to `journal_rows` (the journal's rows) still
    /// does.
    func testOnlyTheTablesAMigrationChangedAreChecked() throws {
        let db = try openMigrated()
        try seed(db)
        try db.execute("PRAGMA foreign_keys=OFF")
        try db.execute("INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('x', 'gone', 'GET', '/d', 404, 'none', 1)")
        try db.execute("PRAGMA foreign_keys=ON")
        let index = Migration(version: 9004, name: "9004_index", sql: "CREATE INDEX requests_by_status ON journal_rows (status);")
        let mocks = Migration(version: 9005, name: "9005_mocks", sql: "UPDATE mocks SET status = 201 WHERE tenant = 'p';")
        XCTAssertEqual(try Migrator.migrate(db, migrations: Schema.migrations + [index, mocks]), [9004, 9005])

        let requests = Migration(version: 9006, name: "9006_requests", sql: "UPDATE journal_rows SET duration_ms = 2;")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [index, mocks, requests])) { error in
            XCTAssertTrue("\(error)".contains("1 foreign key violation(s), first in table journal_rows"), "\(error)")
        }
        // A parent's change checks its children: dropping every tenant leaves mocks and requests dangling.
        try db.execute("PRAGMA foreign_keys=OFF")
        try db.execute("DELETE FROM journal_rows WHERE tenant = 'gone'")
        try db.execute("PRAGMA foreign_keys=ON")
        let parent = Migration(version: 9007, name: "9007_parent", sql: "DELETE FROM tenants;")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [index, mocks, parent])) { error in
            XCTAssertTrue("\(error)".contains("foreign key violation"), "\(error)")
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM tenants WHERE id = 'p'"), .integer(1), "rolled back")
    }

    /// Regression: dropping an index was not noted as a change, so a migration dropping the
    /// unique index a child's foreign key needs checked nothing and committed (the full
    /// `PRAGMA foreign_key_check` it replaced failed with "foreign key mismatch").
    func testDroppingTheUniqueIndexBehindAForeignKeyIsRolledBack() throws {
        let db = try openMigrated()
        let tables = Migration(version: 9008, name: "9008_parent_child", sql: """
            CREATE TABLE p (k TEXT);
            CREATE UNIQUE INDEX p_k ON p (k);
            CREATE TABLE c (x TEXT REFERENCES p (k));
            INSERT INTO p VALUES ('a');
            INSERT INTO c VALUES ('a');
            """)
        XCTAssertEqual(try Migrator.migrate(db, migrations: Schema.migrations + [tables]), [9008])
        let dropIndex = Migration(version: 9009, name: "9009_drop_index", sql: "DROP INDEX p_k;")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [tables, dropIndex])) { error in
            XCTAssertTrue("\(error)".contains("foreign key mismatch"), "\(error)")
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'p_k'"), .integer(1), "rolled back")
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schema_migrations WHERE version = 9009"), .integer(0))
    }

    func testAMigrationThatCommitsItselfIsRefused() throws {
        let db = try openMigrated()
        let committing = Migration(version: 9003, name: "9003_commits", sql: "CREATE TABLE t (x); COMMIT;")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [committing])) { error in
            XCTAssertTrue("\(error)".contains("ended the transaction"), "\(error)")
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schema_migrations WHERE version = 9003"), .integer(0))
    }
}
