import Foundation
import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import XCTest

private struct Boom: Error, Equatable {}

final class DatabaseTests: StorageTestCase {
    func testTransactionRollsBackOnThrownErrorAndRethrowsIt() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE t (x INTEGER NOT NULL)")

        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO t (x) VALUES (?)", [1])
            try db.run("INSERT INTO t (x) VALUES (?)", [2])
            XCTAssertTrue(db.isInTransaction)
            throw Boom()
        }) { error in
            XCTAssertEqual(error as? Boom, Boom())
        }
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM t"), .integer(0))

        // An SQLite failure inside rolls back the statements before it.
        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO t (x) VALUES (?)", [1])
            try db.run("INSERT INTO t (x) VALUES (?)", [.null])
        }) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 19)
        }
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM t"), .integer(0))

        let value = try db.transaction { () throws -> Int in
            try db.run("INSERT INTO t (x) VALUES (?)", [3])
            return 3
        }
        XCTAssertEqual(value, 3)
        XCTAssertEqual(try scalar(db, "SELECT sum(x) FROM t"), .integer(3))
    }

    func testErrorDescriptionIsOneReadableLine() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE t (x TEXT UNIQUE)")
        try db.run("INSERT INTO t (x) VALUES (?)", ["a"])
        XCTAssertThrowsError(try db.run("INSERT INTO t (x)\n    VALUES (?)", ["a"])) { error in
            let error = error as? SQLiteError
            XCTAssertEqual(error?.code, 19)
            XCTAssertEqual(error?.extendedCode, 2067) // SQLITE_CONSTRAINT_UNIQUE
            XCTAssertEqual(
                error?.description,
                "SQLite error 19 (constraint): UNIQUE constraint failed: t.x — in: INSERT INTO t (x) VALUES (?)"
            )
        }
    }

    func testStatementsAreCachedAndAFailedOneIsDropped() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        let sql = "INSERT INTO t (x) VALUES (?)"
        let first = try db.statement(sql)
        XCTAssertIdentical(try db.statement(sql), first)
        try db.run(sql, [1])
        XCTAssertIdentical(try db.statement(sql), first)

        XCTAssertThrowsError(try db.run(sql, [1]))
        let replacement = try db.statement(sql)
        XCTAssertNotIdentical(replacement, first)
        try db.run(sql, [2])
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM t"), .integer(2))
    }

    /// A text hashed once (``StatementText``, the journal writer's `INSERT`) finds the statement
    /// its `String` form cached and the other way round, and a failed step drops it for both.
    func testStatementTextSharesTheCacheWithItsString() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        let sql = "INSERT INTO t (x) VALUES (?)"
        let text = StatementText(sql)
        let first = try db.statement(text)
        XCTAssertIdentical(try db.statement(sql), first)
        XCTAssertIdentical(try db.statement(StatementText(sql)), first)
        XCTAssertNotIdentical(try db.statement(StatementText("INSERT INTO t (x) VALUES (?) ")), first)

        try db.run(sql, [1])
        XCTAssertThrowsError(try db.run(sql, [1]))
        let replacement = try db.statement(text)
        XCTAssertNotIdentical(replacement, first)
        XCTAssertIdentical(try db.statement(sql), replacement)
    }

    func testStatementRequiresExactlyOneStatement() throws {
        let db = try Database(path: ":memory:")
        XCTAssertThrowsError(try db.statement("SELECT 1; SELECT 2")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 21) // SQLITE_MISUSE
        }
        XCTAssertThrowsError(try db.statement(" -- nothing\n;")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 21)
        }
        XCTAssertEqual(try db.query("SELECT 1; -- trailing comment\n ;").count, 1)
        XCTAssertThrowsError(try db.query("SELEC 1")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 1)
        }
    }

    func testChangesLastInsertRowIDAndClose() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x); INSERT INTO t (x) VALUES (1), (2), (3);")
        try db.run("INSERT INTO t (x) VALUES (?)", [4])
        XCTAssertEqual(db.lastInsertRowID, 4)
        try db.run("UPDATE t SET x = x + 1 WHERE id <= ?", [3])
        XCTAssertEqual(db.changes, 3)
        XCTAssertFalse(db.isClosed)
        db.close()
        db.close()
        XCTAssertTrue(db.isClosed)
    }

    func testReadOnlyConnectionSeesCommittedWritesAndCannotWrite() throws {
        let writer = try openMigrated()
        let reader = try Database(path: databasePath(), mode: .readOnly)
        XCTAssertEqual(try scalar(reader, "SELECT count(*) FROM tenants"), .integer(1))

        try writer.run("INSERT INTO tenants (id, created_at, last_activity_at) VALUES (?, 'c', 'l')", ["a"])
        XCTAssertEqual(try scalar(reader, "SELECT group_concat(id, ',') FROM (SELECT id FROM tenants ORDER BY id)"), .text(",a"))

        // Uncommitted writes stay invisible until COMMIT.
        try writer.execute("BEGIN IMMEDIATE; INSERT INTO tenants VALUES ('b', 'c', 'l');")
        XCTAssertEqual(try scalar(reader, "SELECT count(*) FROM tenants"), .integer(2))
        try writer.execute("COMMIT")
        XCTAssertEqual(try scalar(reader, "SELECT count(*) FROM tenants"), .integer(3))

        XCTAssertThrowsError(try reader.run("INSERT INTO tenants VALUES ('r', 'c', 'l')")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 8) // SQLITE_READONLY
        }
        XCTAssertThrowsError(try reader.execute("CREATE TABLE x (y)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 8)
        }
        XCTAssertThrowsError(try reader.execute("CREATE TEMP TABLE x (y)"))
        XCTAssertEqual(try scalar(writer, "SELECT count(*) FROM tenants"), .integer(3))
        XCTAssertEqual(try scalar(writer, "SELECT count(*) FROM sqlite_master WHERE name = 'x'"), .integer(0))
    }

    func testOpeningAMissingFileReadOnlyFails() throws {
        XCTAssertThrowsError(try Database(path: databasePath("missing.sqlite"), mode: .readOnly)) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 14) // SQLITE_CANTOPEN
            XCTAssertTrue("\(error)".contains("missing.sqlite"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: databasePath("missing.sqlite")))
    }

    func testInMemoryDatabaseWorksWithoutWAL() throws {
        let db = try Database(path: ":memory:")
        XCTAssertEqual(try scalar(db, "PRAGMA journal_mode"), .text("memory"))
        try db.execute("CREATE TABLE t (x)")
        try db.run("INSERT INTO t VALUES (?)", [1])
        XCTAssertEqual(try scalar(db, "SELECT x FROM t"), .integer(1))
    }

    /// Every connection, the writer too, is hardened for untrusted SQL
    /// (https://www.sqlite.org/security.html): the two-argument fts3_tokenizer() (installs any
    /// address as a tokenizer; Debian's SQLite enables it) fails, and defensive mode refuses
    /// editing the schema table even with writable_schema on.
    func testConnectionsRefuseInstallingTokenizersAndEditingTheSchema() throws {
        let writer = try openMigrated()
        let reader = try Database(path: databasePath(), mode: .readOnly)
        for db in [writer, reader] {
            XCTAssertThrowsError(try scalar(db, "SELECT fts3_tokenizer('simple', x'4141414141414141')")) { error in
                XCTAssertTrue("\(error)".contains("fts3tokenize disabled"), "\(error)")
            }
        }
        try writer.execute("PRAGMA writable_schema = ON")
        XCTAssertThrowsError(try writer.execute("UPDATE sqlite_master SET sql = 'x' WHERE name = 'tenants'"))
        try writer.execute("PRAGMA writable_schema = OFF")
        XCTAssertEqual(try scalar(writer, "SELECT count(*) FROM tenants"), .integer(1), "the schema is intact")
    }

    /// Regression: the WAL file stayed at its largest size for good (61 MB after a load
    /// test). A burst still grows it, but once a checkpoint lets the WAL start over the next
    /// commit truncates it to `walSizeLimit`.
    func testTheWALFileShrinksToItsLimitAfterACheckpoint() throws {
        let db = try Database(path: databasePath())
        try db.execute("CREATE TABLE blobs (b BLOB)")
        try db.run("INSERT INTO blobs VALUES (zeroblob(?))", [.integer(Int64(Database.walSizeLimit + (8 << 20)))])
        let wal = databasePath() + "-wal"
        func walSize() throws -> Int { (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? -1 }
        XCTAssertGreaterThan(try walSize(), Database.walSizeLimit, "the burst grew the WAL past the limit")
        try db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        try db.run("INSERT INTO blobs VALUES (x'01')")
        XCTAssertLessThanOrEqual(try walSize(), Database.walSizeLimit)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM blobs"), .integer(2))
    }
}
