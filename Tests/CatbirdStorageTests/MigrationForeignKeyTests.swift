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
            INSERT INTO requests (time, tenant, method, url, status, answered_by, duration_ms)
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

    func testAMigrationThatCommitsItselfIsRefused() throws {
        let db = try openMigrated()
        let committing = Migration(version: 9003, name: "9003_commits", sql: "CREATE TABLE t (x); COMMIT;")
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [committing])) { error in
            XCTAssertTrue("\(error)".contains("ended the transaction"), "\(error)")
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schema_migrations WHERE version = 9003"), .integer(0))
    }
}
