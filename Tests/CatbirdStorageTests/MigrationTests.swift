import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

final class MigrationTests: StorageTestCase {
    /// Column names of `table`, in order, from `PRAGMA table_xinfo` (generated columns included).
    private func columns(_ db: Database, _ table: String) throws -> [String] {
        try db.query("SELECT name FROM pragma_table_xinfo(?) ORDER BY cid", [.text(table)])
            .map { $0["name"].stringValue ?? "?" }
    }

    func testFreshDatabaseHasExactlyTheExpectedSchema() throws {
        let db = try openMigrated()

        let tables = try db.query("""
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """).map { $0[0].stringValue }
        XCTAssertEqual(tables, ["journal_bodies", "journal_deletions", "journal_deletions_all", "journal_pruned", "journal_rows", "mock_body_pieces", "mock_rows", "schema_migrations", "tenants"])
        XCTAssertEqual(
            try db.query("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger') ORDER BY name").map { $0.values },
            [
                [.text("trigger"), .text("journal_rows_release_body")], [.text("view"), .text("mocks")], [.text("trigger"), .text("mocks_delete")],
                [.text("trigger"), .text("mocks_insert")], [.text("trigger"), .text("mocks_update")], [.text("view"), .text("requests")],
            ])

        XCTAssertEqual(try columns(db, "tenants"), ["id", "created_at", "last_activity_at"])
        XCTAssertEqual(try columns(db, "mocks"), [
            "id", "tenant", "position", "method", "url_kind", "url_value", "header_patterns",
            "status", "response_headers", "response_body", "remaining_limit", "delay_seconds",
            "hits", "created_at", "body_pattern",
        ])
        // The rows' table: the former mocks (migration 0014) plus where a body in pieces is.
        XCTAssertEqual(try columns(db, "mock_rows"), try columns(db, "mocks") + ["response_body_id"])
        XCTAssertEqual(try columns(db, "mock_body_pieces"), ["body_id", "piece", "bytes"])
        XCTAssertEqual(try columns(db, "requests"), [
            "id", "time", "tenant", "method", "url", "request_headers", "request_body",
            "request_body_size", "request_body_truncated", "status", "response_headers",
            "response_body", "response_body_size", "response_body_truncated", "answered_by",
            "mock_id", "duration_ms", "file_path", "near_misses_copy", "problem", "near_misses_offset",
            "near_misses_length", "near_misses",
        ])
        // The rows' table: the former requests (migration 0010) plus where a body stored once is.
        XCTAssertEqual(try columns(db, "journal_rows"), try columns(db, "requests") + ["response_body_id"])
        XCTAssertEqual(try columns(db, "journal_bodies"), ["id", "body", "url_marked", "refs", "tenant"])
        // near_misses is computed when read (migration 0008), never stored.
        XCTAssertEqual(
            try scalar(db, "SELECT hidden FROM pragma_table_xinfo('journal_rows') WHERE name = 'near_misses'"), .integer(2))
        XCTAssertEqual(try columns(db, "schema_migrations"), ["version", "name", "applied_at"])

        let indexes = try db.query("""
            SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name
            """).map { $0[0].stringValue }
        XCTAssertEqual(indexes, ["mock_rows_by_body", "mocks_by_tenant_position", "requests_by_tenant"])
        XCTAssertEqual(
            try db.query("SELECT name FROM pragma_index_info('requests_by_tenant') ORDER BY seqno").map { $0[0].stringValue },
            ["tenant", "id", "method", "url"], "one index, in id order, holding what pattern queries compare (migration 0009)")
        XCTAssertEqual(try columns(db, "journal_deletions"), ["tenant", "through_id"])

        XCTAssertEqual(try db.query("SELECT id FROM tenants").map { $0["id"] }, [.text("")])
        XCTAssertEqual(try scalar(db, "PRAGMA journal_mode"), .text("wal"))
        XCTAssertEqual(try scalar(db, "PRAGMA foreign_keys"), .integer(1))

        let recorded = try db.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        XCTAssertEqual(recorded.map { $0["version"] }, Schema.migrations.map { .integer(Int64($0.version)) })
        XCTAssertEqual(recorded.map { $0["name"] }, Schema.migrations.map { .text($0.name) })
        for row in recorded {
            // e.g. 2025-01-31T12:34:56.789Z
            let appliedAt = try XCTUnwrap(row["applied_at"].stringValue)
            XCTAssertEqual(appliedAt.count, 24, appliedAt)
            XCTAssertTrue(appliedAt.hasSuffix("Z"), appliedAt)
        }
    }

    /// Regression (migration 0011): 0010's view joined journal_bodies, and SQLite kept the join
    /// in a count by tenant: `requests_by_tenant` stopped covering it (each row read for its
    /// body id) and journal_bodies was searched once per row. The bodies are now read in scalar
    /// subqueries, only by the queries that read a body column.
    func testReadsOfTheRequestsViewThatUseNoBodyReadTheTenantIndexAlone() throws {
        let db = try openMigrated()
        func plan(_ sql: String) throws -> [String] {
            try db.query("EXPLAIN QUERY PLAN " + sql, [.text("t")]).map { $0["detail"].stringValue ?? "?" }
        }
        for sql in [
            "SELECT count(*) FROM requests WHERE tenant = ?",
            "SELECT id, method, url FROM requests WHERE tenant = ? ORDER BY id DESC LIMIT 50",
        ] {
            XCTAssertEqual(try plan(sql), ["SEARCH r USING COVERING INDEX requests_by_tenant (tenant=?)"], sql)
        }
        let body = try plan("SELECT response_body, near_misses FROM requests WHERE tenant = ?")
        XCTAssertTrue(body.contains { $0.hasPrefix("CORRELATED SCALAR SUBQUERY") }, "\(body)")
        XCTAssertTrue(body.contains("SEARCH b USING INTEGER PRIMARY KEY (rowid=?)"), "\(body)")
    }

    func testEmbeddedMigrationsEqualTheFilesInTheMigrationsFolder() throws {
        // Test-only look at the source tree: the binary itself never reads it.
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("migrations", isDirectory: true)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        XCTAssertFalse(files.isEmpty)

        let expected = try files.map { file -> Migration in
            let name = file.deletingPathExtension().lastPathComponent
            let version = try XCTUnwrap(Int(name.prefix(4)))
            let bytes = try Data(contentsOf: file)
            return Migration(version: version, name: name, sql: String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertEqual(Schema.migrations.map(\.name), expected.map(\.name))
        XCTAssertEqual(Schema.migrations.map(\.version), expected.map(\.version))
        XCTAssertEqual(Schema.migrations, expected)
        // Byte for byte (String's == would equate canonically equivalent texts).
        XCTAssertEqual(Schema.migrations.map { Array($0.sql.utf8) }, expected.map { Array($0.sql.utf8) })
        XCTAssertEqual(Schema.migrations.first?.version, 1)
        XCTAssertEqual(Schema.migrations.first?.name, "0001_initial")
    }

    func testMigratingAnUpToDateDatabaseAgainChangesNothing() throws {
        let path = databasePath()
        do {
            let db = try openMigrated()
            try db.run("INSERT INTO tenants (id, created_at, last_activity_at) VALUES ('t1', 'c', 'l')")
            db.close()
        }
        let db = try Database(path: path)
        let schemaBefore = try schemaSnapshot(db)
        let recordsBefore = try db.query("SELECT * FROM schema_migrations ORDER BY version")
        let tenantsBefore = try db.query("SELECT * FROM tenants ORDER BY id")
        XCTAssertEqual(tenantsBefore.count, 2)

        XCTAssertEqual(try Schema.migrate(db), [])
        XCTAssertEqual(try Schema.migrate(db), [])

        XCTAssertEqual(try schemaSnapshot(db), schemaBefore)
        XCTAssertEqual(try db.query("SELECT * FROM schema_migrations ORDER BY version"), recordsBefore)
        XCTAssertEqual(try db.query("SELECT * FROM tenants ORDER BY id"), tenantsBefore)
    }

    func testFailingMigrationRollsBackItsChangesAndItsRecord() throws {
        let db = try Database(path: databasePath())
        let broken = Migration(
            version: 9999,
            name: "9999_broken",
            sql: "CREATE TABLE broken_table (x INTEGER);\nINSERT INTO no_such_table VALUES (1);"
        )

        XCTAssertThrowsError(try Migrator.migrate(db, migrations: Schema.migrations + [broken])) { error in
            guard case MigrationError.failed(let version, let name, let sqliteError) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(version, 9999)
            XCTAssertEqual(name, "9999_broken")
            XCTAssertTrue(sqliteError.message.contains("no_such_table"), sqliteError.message)
            XCTAssertTrue("\(error)".contains("9999_broken"), "\(error)")
        }

        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'broken_table'"), .integer(0))
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM schema_migrations WHERE version = 9999"), .integer(0))
        // The migrations before it were applied, each in its own transaction.
        XCTAssertEqual(
            try db.query("SELECT version FROM schema_migrations ORDER BY version").map { $0[0] },
            Schema.migrations.map { .integer(Int64($0.version)) }
        )
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM tenants"), .integer(1))
    }

    func testDatabaseRecordingANewerVersionIsRefused() throws {
        let db = try openMigrated()
        try db.run(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            [5000, "5000_from_the_future", "2099-01-01T00:00:00.000Z"]
        )
        let schemaBefore = try schemaSnapshot(db)
        let latest = try XCTUnwrap(Schema.migrations.last?.version)

        XCTAssertThrowsError(try Schema.migrate(db)) { error in
            XCTAssertEqual(error as? MigrationError, .newerDatabase(found: 5000, latestKnown: latest))
            XCTAssertTrue("\(error)".contains("5000"), "\(error)")
        }
        XCTAssertEqual(try schemaSnapshot(db), schemaBefore)
    }

    func testRecordedVersionMissingFromTheBinaryIsRefused() throws {
        let db = try Database(path: databasePath())
        let one = Migration(version: 1, name: "0001_a", sql: "CREATE TABLE a (x);")
        let two = Migration(version: 2, name: "0002_b", sql: "CREATE TABLE b (x);")
        let three = Migration(version: 3, name: "0003_c", sql: "CREATE TABLE c (x);")
        XCTAssertEqual(try Migrator.migrate(db, migrations: [two, one]), [1, 2])
        XCTAssertThrowsError(try Migrator.migrate(db, migrations: [one, three])) { error in
            XCTAssertEqual(error as? MigrationError, .unknownVersion(found: 2))
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'c'"), .integer(0))
    }

    func testOnlyPendingMigrationsAreApplied() throws {
        let db = try Database(path: databasePath())
        let one = Migration(version: 1, name: "0001_a", sql: "CREATE TABLE a (x);")
        let two = Migration(version: 2, name: "0002_b", sql: "CREATE TABLE b (x); INSERT INTO b VALUES (1);")
        XCTAssertEqual(try Migrator.migrate(db, migrations: [one]), [1])
        XCTAssertEqual(try Migrator.migrate(db, migrations: [one, two]), [2])
        XCTAssertEqual(try Migrator.migrate(db, migrations: [one, two]), [])
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM b"), .integer(1))
    }

    /// Migration 0008 (a 404's near misses stored once) on a journal written before it: the
    /// rows' `near_misses` read as before, byte for byte, and a new row's text is read from its
    /// place in the body.
    func testNearMissesJournaledBeforeMigration8ReadTheSameAfterIt() throws {
        let db = try Database(path: databasePath())
        let before = Schema.migrations.filter { $0.version < 8 }
        XCTAssertEqual(try Migrator.migrate(db, migrations: before), before.map(\.version))
        let old = #"[{"distance":0.4,"fields":[],"mockId":7,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/é"}},"position":1,"tenant":""}]"#
        let insert = """
            INSERT INTO requests (time, tenant, method, url, status, answered_by, duration_ms, response_body, near_misses)
            VALUES ('2026-12-01T10:00:00.000Z', '', 'GET', ?, 404, 'none', 1, ?, ?)
            """
        try db.run(insert, [.text("/old-miss"), .blob(Array(#"{"nearMisses":[]}"#.utf8)), .text(old)])
        try db.run(insert, [.text("/old-hit"), .null, .null])

        XCTAssertEqual(try Migrator.migrate(db, migrations: Schema.migrations), Schema.migrations.filter { $0.version >= 8 }.map(\.version))
        let rows = try db.query("SELECT near_misses, typeof(near_misses), near_misses_copy FROM requests ORDER BY id")
        XCTAssertEqual(rows.map { $0[0] }, [.text(old), .null])
        XCTAssertEqual(rows.first?[1], .text("text"))
        XCTAssertEqual(rows.first?[2], .text(old), "the old text stays where it was, renamed")

        // A row written the new way: the array's place in the body, 1-based.
        let body = #"{"error":true,"nearMisses":[{"tenant":"ü"}],"reason":"r"}"#
        let offset = try XCTUnwrap(body.utf8.firstIndex(of: UInt8(ascii: "[")).map { body.utf8.distance(from: body.utf8.startIndex, to: $0) })
        try db.run(
            """
            INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms, response_body,
                                      near_misses_offset, near_misses_length)
            VALUES ('2026-12-01T10:00:01.000Z', '', 'GET', '/new-miss', 404, 'none', 1, ?, ?, ?)
            """, [.blob(Array(body.utf8)), .integer(Int64(offset + 1)), .integer(Int64(#"[{"tenant":"ü"}]"#.utf8.count))])
        XCTAssertEqual(
            try scalar(db, "SELECT near_misses FROM requests WHERE url = '/new-miss'"), .text(#"[{"tenant":"ü"}]"#))
        XCTAssertThrowsError(try db.run("UPDATE journal_rows SET near_misses = '[]'"), "a generated column cannot be written")
    }
}
