import CatbirdDomain
import CatbirdSQLSandbox
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

final class ReadOnlyQueryTests: StorageTestCase {
    private let oneSecond = Duration.seconds(1)

    private func assertRefused(
        _ db: Database, _ sql: String, _ expected: ReadOnlyQueryError,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(
            try db.readOnlyQuery(sql, parameters: [], maxRows: 10, timeLimit: oneSecond),
            sql, file: file, line: line
        ) { error in
            XCTAssertEqual(error as? ReadOnlyQueryError, expected, sql, file: file, line: line)
        }
    }

    /// Everything a refused statement could have changed.
    private func state(_ db: Database) throws -> [String] {
        try schemaSnapshot(db).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            + db.query("SELECT * FROM tenants ORDER BY id").map { "\($0.values)" }
            + db.query("SELECT * FROM schema_migrations").map { "\($0.values)" }
            + db.query("PRAGMA journal_mode").map { "journal_mode \($0.values)" }
            + db.query("PRAGMA user_version").map { "user_version \($0.values)" }
            + db.query("PRAGMA foreign_keys").map { "foreign_keys \($0.values)" }
            + db.query("PRAGMA database_list").map { "database \($0["name"])" }
            + ["in transaction: \(db.isInTransaction)"]
    }

    func testWritesAndConnectionChangesAreRefusedAndChangeNothing() throws {
        let db = try openMigrated()
        try db.run("INSERT INTO tenants VALUES ('t1', 'c', 'l')")
        let before = try state(db)
        let attached = databasePath("attached.sqlite")

        for sql in [
            "INSERT INTO tenants VALUES ('x', 'c', 'l')",
            "UPDATE tenants SET created_at = 'never'",
            "DELETE FROM tenants",
            "DROP TABLE mocks",
            "CREATE TABLE evil (x)",
            "CREATE TEMP TABLE evil (x)",
            "CREATE INDEX evil ON tenants (created_at)",
            "ALTER TABLE tenants ADD COLUMN evil TEXT",
            "ATTACH DATABASE '\(attached)' AS other",
            "DETACH DATABASE main",
            "PRAGMA journal_mode=DELETE",
            "PRAGMA journal_mode",
            "PRAGMA user_version = 7",
            "PRAGMA foreign_keys = OFF",
            "PRAGMA query_only = 0",
            "PRAGMA wal_checkpoint(TRUNCATE)",
            "BEGIN",
            "BEGIN IMMEDIATE",
            "SAVEPOINT s",
            "VACUUM",
            "REINDEX",
            "ANALYZE",
            "WITH x AS (SELECT 1) DELETE FROM tenants",
            "REPLACE INTO tenants VALUES ('', 'c', 'l')",
            "SELECT load_extension('libevil')",
        ] {
            assertRefused(db, sql, .notReadOnly)
        }
        // Here SQLite refuses first, by itself.
        let schemaEdit = "UPDATE sqlite_master SET sql = 'x' WHERE name = 'tenants'"
        XCTAssertThrowsError(try db.readOnlyQuery(schemaEdit, parameters: [], maxRows: 1, timeLimit: oneSecond)) { error in
            guard case .sqlite(let sqliteError) = error as? ReadOnlyQueryError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(sqliteError.message.contains("may not be modified"), sqliteError.message)
        }
        XCTAssertEqual(try state(db), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: attached))
    }

    func testSecondStatementIsRefused() throws {
        let db = try openMigrated()
        let before = try state(db)
        assertRefused(db, "SELECT 1; DELETE FROM tenants", .multipleStatements)
        assertRefused(db, "SELECT 1;SELECT 2", .multipleStatements)
        assertRefused(db, "SELECT 1; /* c */ -- c\n x", .multipleStatements)
        XCTAssertEqual(try state(db), before)

        let result = try db.readOnlyQuery(
            "SELECT 1 AS one; -- trailing comment\n ;; /* another */ ", parameters: [], maxRows: 10, timeLimit: oneSecond
        )
        XCTAssertEqual(result, ReadOnlyQueryResult(columns: ["one"], rows: [[1]], truncated: false))
    }

    func testEmptyAndInvalidSQL() throws {
        let db = try openMigrated()
        assertRefused(db, "", .empty)
        assertRefused(db, "  -- nothing\n ; /* at all */", .empty)
        XCTAssertThrowsError(try db.readOnlyQuery("SELEC 1", parameters: [], maxRows: 1, timeLimit: oneSecond)) { error in
            guard case .sqlite(let sqliteError) = error as? ReadOnlyQueryError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(sqliteError.code, 1)
        }
        XCTAssertThrowsError(try db.readOnlyQuery("SELECT * FROM nope", parameters: [], maxRows: 1, timeLimit: oneSecond)) { error in
            guard case .sqlite = error as? ReadOnlyQueryError else { return XCTFail("unexpected \(error)") }
        }
    }

    func testParametersAreBoundNotInterpolated() throws {
        let db = try openMigrated()
        let hostile = "x'; DROP TABLE tenants; --"
        let echoed = try db.readOnlyQuery("SELECT ? AS v, typeof(?2) AS t", parameters: [.text(hostile), .blob([0, 1])],
                                          maxRows: 10, timeLimit: oneSecond)
        XCTAssertEqual(echoed.columns, ["v", "t"])
        XCTAssertEqual(echoed.rows, [[.text(hostile), .text("blob")]])

        let lookup = try db.readOnlyQuery("SELECT id FROM tenants WHERE id = :id", parameters: [.text("' OR 1=1 --")],
                                          maxRows: 10, timeLimit: oneSecond)
        XCTAssertEqual(lookup.rows, [])
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM tenants"), .integer(1))
    }

    func testWrongParameterCountIsRefused() throws {
        let db = try openMigrated()
        XCTAssertThrowsError(try db.readOnlyQuery("SELECT ?, ?", parameters: [1], maxRows: 1, timeLimit: oneSecond)) { error in
            XCTAssertEqual(error as? ReadOnlyQueryError, .parameterCountMismatch(expected: 2, given: 1))
        }
        XCTAssertThrowsError(try db.readOnlyQuery("SELECT 1", parameters: [1], maxRows: 1, timeLimit: oneSecond)) { error in
            XCTAssertEqual(error as? ReadOnlyQueryError, .parameterCountMismatch(expected: 0, given: 1))
        }
    }

    func testRowsAreCapped() throws {
        let db = try openMigrated()
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c"
        let capped = try db.readOnlyQuery(sql, parameters: [], maxRows: 10, timeLimit: oneSecond)
        XCTAssertEqual(capped.columns, ["x"])
        XCTAssertEqual(capped.rows, (1...10).map { [.integer(Int64($0))] })
        XCTAssertTrue(capped.truncated)

        let exact = try db.readOnlyQuery(sql, parameters: [], maxRows: 100, timeLimit: oneSecond)
        XCTAssertEqual(exact.rows.count, 100)
        XCTAssertFalse(exact.truncated)

        let none = try db.readOnlyQuery(sql, parameters: [], maxRows: 0, timeLimit: oneSecond)
        XCTAssertEqual(none, ReadOnlyQueryResult(columns: ["x"], rows: [], truncated: true))
    }

    func testSlowQueryTimesOutAndTheConnectionRecovers() throws {
        let db = try openMigrated()
        // About 4 s of work unless interrupted: bounded, so that a broken time limit fails the
        // test below instead of hanging it.
        let slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c"
        let clock = ContinuousClock()
        let started = clock.now
        XCTAssertThrowsError(try db.readOnlyQuery(slow, parameters: [], maxRows: 1, timeLimit: .milliseconds(50))) { error in
            XCTAssertEqual(error as? ReadOnlyQueryError, .timedOut(milliseconds: 50))
        }
        let elapsed = clock.now - started
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(50))
        XCTAssertLessThan(elapsed, .seconds(1))

        // The progress handler is gone: ordinary work is not interrupted afterwards.
        let counted = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT count(*) FROM c"
        XCTAssertEqual(try scalar(db, counted), .integer(200_000))
        try db.run("INSERT INTO tenants VALUES ('after', 'c', 'l')")
    }

    func testIntrospectionPragmasAreAllowed() throws {
        let db = try openMigrated()
        let info = try db.readOnlyQuery("PRAGMA table_info(tenants)", parameters: [], maxRows: 10, timeLimit: oneSecond)
        XCTAssertEqual(info.rows.map { $0[1] }, ["id", "created_at", "last_activity_at"])
        let viaFunction = try db.readOnlyQuery(
            "SELECT name FROM pragma_table_info(?)", parameters: ["mocks"], maxRows: 100, timeLimit: oneSecond
        )
        XCTAssertEqual(viaFunction.rows.count, 15)
        let version = try db.readOnlyQuery("PRAGMA user_version", parameters: [], maxRows: 1, timeLimit: oneSecond)
        XCTAssertEqual(version.rows, [[0]])
    }

    /// Regression: `SELECT file FROM pragma_database_list` answered the database file's path on
    /// the server to any tenant. Both forms are refused, however they are written, and the
    /// other pragma functions still answer.
    func testTheDatabaseListIsRefusedInEveryForm() throws {
        let db = try openMigrated()
        for sql in [
            "PRAGMA database_list", "pragma DATABASE_LIST", "PRAGMA main.database_list", "SELECT file FROM pragma_database_list",
            "SELECT * FROM main.pragma_database_list()", "SELECT count(*) FROM PRAGMA_Database_List",
            "WITH d AS (SELECT * FROM pragma_database_list) SELECT name FROM d",
            "SELECT (SELECT file FROM pragma_database_list LIMIT 1)",
        ] {
            assertRefused(db, sql, .pragmaNotAvailable(name: "database_list"))
        }
        XCTAssertEqual(
            ReadOnlyQueryError.pragmaNotAvailable(name: "database_list").description,
            "the pragma database_list is not available: it would show where the server keeps its database file")
        let functions = try db.readOnlyQuery(
            "SELECT count(*) > 0 FROM pragma_function_list", parameters: [], maxRows: 1, timeLimit: oneSecond)
        XCTAssertEqual(functions.rows, [[1]])
    }

    /// Regression: a pragma's table function prepares its `PRAGMA` when the query runs, where
    /// no allow-list judged it, so `pragma_foreign_key_check` and `pragma_quick_check` read
    /// rows past any scope. Only the introspection pragmas' functions are allowed.
    func testPragmaFunctionsOutsideTheIntrospectionListAreRefused() throws {
        let db = try openMigrated()
        for sql in [
            "SELECT * FROM pragma_foreign_key_check", "SELECT * FROM pragma_quick_check",
            "SELECT count(*) FROM PRAGMA_integrity_check", "SELECT * FROM main.pragma_foreign_key_check('requests')",
            "SELECT name FROM pragma_table_info('mocks') JOIN pragma_quick_check",
        ] {
            assertRefused(db, sql, .notReadOnly)
        }
        let version = try db.readOnlyQuery("SELECT * FROM pragma_user_version", parameters: [], maxRows: 1, timeLimit: oneSecond)
        XCTAssertEqual(version.rows, [[0]])
    }

    func testReadOnlyConnectionAnswersQueries() throws {
        let writer = try openMigrated()
        try writer.run("INSERT INTO tenants VALUES ('t1', 'c', 'l')")
        let reader = try Database(path: databasePath(), mode: .readOnly)
        let result = try reader.readOnlyQuery(
            "SELECT id FROM tenants ORDER BY id", parameters: [], maxRows: 10, timeLimit: oneSecond
        )
        XCTAssertEqual(result, ReadOnlyQueryResult(columns: ["id"], rows: [[""], ["t1"]], truncated: false))
        assertRefused(reader, "DELETE FROM tenants", .notReadOnly)
    }
}
