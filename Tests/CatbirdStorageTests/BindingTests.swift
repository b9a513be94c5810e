import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import XCTest

final class BindingTests: StorageTestCase {
    private let samples: [SQLiteValue] = [
        .null,
        .integer(Int64.min),
        .integer(Int64.max),
        .integer(0),
        .integer(-1),
        .real(3.141592653589793),
        .real(-1.5e-300),
        .real(Double.greatestFiniteMagnitude),
        .text(""),
        .text("héllo wörld — 日本語 🐦 \u{1F3F3}\u{FE0F}\u{200D}\u{1F308} ' \" \\ %"),
        .blob(Array(0...255)),
        .blob([]),
        .blob([0]),
    ]

    private func openTable() throws -> Database {
        let db = try Database(path: databasePath())
        // No declared type: values keep the storage class they were bound with.
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        return db
    }

    func testValuesRoundTripThroughBindingsArray() throws {
        let db = try openTable()
        for value in samples {
            try db.run("INSERT INTO t (v) VALUES (?)", [value])
        }
        let rows = try db.query("SELECT v, typeof(v) AS type FROM t ORDER BY id")
        XCTAssertEqual(rows.map { $0["v"] }, samples)
        XCTAssertEqual(rows.map { $0["type"].stringValue }, [
            "null", "integer", "integer", "integer", "integer", "real", "real", "real",
            "text", "text", "blob", "blob", "blob",
        ])
        // Empty blob and NULL stay distinct in SQL too.
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM t WHERE v = X''"), .integer(1))
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM t WHERE v IS NULL"), .integer(1))
        XCTAssertEqual(try scalar(db, "SELECT length(v) FROM t WHERE typeof(v) = 'blob' AND length(v) = 256"), .integer(256))
    }

    func testValuesRoundTripThroughSingleValueBinders() throws {
        let db = try openTable()
        for value in samples {
            let statement = try db.statement("INSERT INTO t (v) VALUES (?)")
            statement.bind(value, at: 1)
            try statement.run()
        }
        XCTAssertEqual(try db.query("SELECT v FROM t ORDER BY id").map { $0[0] }, samples)
    }

    func testTypedBinders() throws {
        let db = try openTable()
        let insert = try db.statement("INSERT INTO t (v) VALUES (?)")
        insert.bind(Int64.min, at: 1); try insert.run()
        insert.bind(42, at: 1); try insert.run()
        insert.bind(2.5, at: 1); try insert.run()
        insert.bind("ünïcödé", at: 1); try insert.run()
        insert.bind("", at: 1); try insert.run()
        insert.bind(bytes: [0, 255, 0], at: 1); try insert.run()
        insert.bind(bytes: [UInt8](), at: 1); try insert.run()
        [UInt8](repeating: 7, count: 3).withUnsafeBytes { insert.bind(bytes: $0, at: 1) }
        try insert.run()
        insert.bindNull(at: 1); try insert.run()

        let select = try db.statement("SELECT v FROM t ORDER BY id")
        var values: [SQLiteValue] = []
        while try select.step() {
            values.append(select.column(0))
        }
        XCTAssertEqual(values, [
            .integer(Int64.min), .integer(42), .real(2.5), .text("ünïcödé"), .text(""),
            .blob([0, 255, 0]), .blob([]), .blob([7, 7, 7]), .null,
        ])
    }

    /// The rendering for logs: a blob in upper-case hex (shared ``ASCIIByte`` digits), text quoted.
    func testValuesDescribeThemselvesForLogs() {
        XCTAssertEqual(SQLiteValue.blob([0x00, 0x0F, 0xA5, 0xFF]).description, "X'000FA5FF'")
        XCTAssertEqual(SQLiteValue.blob([]).description, "X''")
        XCTAssertEqual(SQLiteValue.text("it's").description, "'it''s'")
        XCTAssertEqual(SQLiteValue.null.description, "NULL")
    }

    func testTypedColumnReaders() throws {
        let db = try Database(path: databasePath())
        let statement = try db.statement("SELECT 7 AS i, 'x' AS s, X'0102' AS b, NULL AS n")
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.columnCount, 4)
        XCTAssertEqual(statement.columnNames, ["i", "s", "b", "n"])
        XCTAssertEqual(statement.int64(at: 0), 7)
        XCTAssertEqual(statement.string(at: 1), "x")
        XCTAssertEqual(statement.bytes(at: 2), [1, 2])
        XCTAssertNil(statement.string(at: 3))
        XCTAssertNil(statement.bytes(at: 3))
        XCTAssertFalse(try statement.step())
    }

    func testRowAccessByNameAndPosition() throws {
        let db = try Database(path: ":memory:")
        let row = try XCTUnwrap(db.query("SELECT 1 AS One, ? AS two", ["b"]).first)
        XCTAssertEqual(row.columns, ["One", "two"])
        XCTAssertEqual(row[0], 1)
        XCTAssertEqual(row["One"], .integer(1))
        XCTAssertEqual(row["one"], .integer(1))
        XCTAssertEqual(row["two"], .text("b"))
        XCTAssertNil(row.value(named: "three"))
    }

    func testValueConveniences() {
        XCTAssertEqual(SQLiteValue.integer(3).intValue, 3)
        XCTAssertEqual(SQLiteValue.integer(3).doubleValue, 3.0)
        XCTAssertEqual(SQLiteValue.real(0.5).doubleValue, 0.5)
        XCTAssertNil(SQLiteValue.real(0.5).intValue)
        XCTAssertEqual(SQLiteValue.text("a").stringValue, "a")
        XCTAssertNil(SQLiteValue.blob([1]).stringValue)
        XCTAssertEqual(SQLiteValue.blob([]).blobValue, [])
        XCTAssertNil(SQLiteValue.null.blobValue)
        XCTAssertTrue(SQLiteValue.null.isNull)
        XCTAssertFalse(SQLiteValue.blob([]).isNull)
        XCTAssertEqual("\(SQLiteValue.text("it's"))", "'it''s'")
        XCTAssertEqual("\(SQLiteValue.blob([0, 171]))", "X'00AB'")
    }
}
