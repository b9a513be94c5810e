import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A `mocks` row edited with SQL (docs/schema.md#tables documents the columns and invites
/// `sqlite3`) is checked when the server starts, as `update` checks a mock
/// (README.md#storage-faults): one the server cannot read, or that `update` refuses, stops the
/// start with exit 3 naming the file, the row, its column and what is wrong; a regular
/// expression that does not compile (compiled after listening, try9b F14) is logged as a
/// warning naming the row. Tester finding tester21b-F7: exit 1 with a bare `DecodingError`,
/// a status of 999 served as `HTTP/1.1 999`, a mock that silently never matched.
final class EditedMockRowStartupTests: XCTestCase {
    private var directory: URL!
    private var database: String!

    /// A database file whose default tenant holds two mocks written by the server: row 1
    /// `GET /a` answering `a`, row 2 `GET /b` answering `b`.
    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-edited-row-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("x.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/a", body: "a")
        try E2E.addMock(client, url: "/b", body: "b")
        XCTAssertEqual(try server.terminate().status, 0)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The finding's first input: exit 1 and `DecodingError.dataCorrupted: … not valid JSON`.
    /// Deleting the row, as the message says, lets the server start with the other mock.
    func testHeaderPatternsThatAreNotJSONStopTheStartNamingTheRow() throws {
        try edit("update mocks set header_patterns='{not json' where id=1")
        let result = try start()
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(
            result.stderr.contains(
                "cannot start: database \(database!): mocks row 1 (tenant \"\"): header_patterns is not valid JSON (invalid JSON at line 1, "
                    + "column 2"), result.stderr)
        XCTAssertTrue(result.stderr.contains("fix or delete the row (docs/schema.md#editing-mocks-rows)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("DecodingError"), result.stderr)

        try edit("delete from mocks where id=1")
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        defer { _ = try? server.terminate() }
        XCTAssertEqual(try server.client().request("GET", "/b").text, "b")
    }

    /// The finding's second input: exit 1 and `DecodingError.typeMismatch … found an array instead`.
    func testABodyPatternOfTheWrongShapeStopsTheStartNamingTheRow() throws {
        try assertStartRefused(
            after: "update mocks set body_pattern='[1,2]' where id=1",
            saying: #"database \#(database!): mocks row 1 (tenant ""): body_pattern is not JSON {"kind": "…", "value": "…"} or NULL "#
                + "(the value must be an object)")
    }

    /// `status=999` was served as `HTTP/1.1 999 Non-Standard Status`, though `update` refuses it.
    func testAStatusUpdateRefusesStopsTheStartWithUpdatesReason() throws {
        try assertStartRefused(
            after: "update mocks set status=999 where id=1",
            saying: "database \(database!): mocks row 1 (tenant \"\"): status is refused as an update would refuse it: "
                + "'response.status' must be between 200 and 599, not 999; fix or delete the row")
    }

    /// A number stored as text was read as no number (the status as 200): the column is named.
    func testAStatusStoredAsTextStopsTheStart() throws {
        try assertStartRefused(
            after: "update mocks set status='abc' where id=2", saying: "mocks row 2 (tenant \"\"): status must be an INTEGER, not TEXT")
    }

    /// Regression (tester finding tester54a-F4): `created_at` written as `'2026'` loaded, and
    /// the listing showed the mock's `createdAt` as `1970-01-01T00:00:00.000Z`.
    func testACreatedAtThatIsNoTimeStopsTheStart() throws {
        try assertStartRefused(
            after: "update mocks set created_at='2026' where id=2",
            saying: "mocks row 2 (tenant \"\"): created_at must be a UTC time as ISO 8601 with milliseconds "
                + "(strftime('%Y-%m-%dT%H:%M:%fZ','now')), not \"2026\"; fix or delete the row")
    }

    /// `url_kind='regexp', url_value='([a-'` started with nothing said and never matched. It
    /// still starts (expressions compile after listening), and the compile names the row.
    func testARegexpThatDoesNotCompileIsLoggedNamingTheRow() throws {
        try edit("update mocks set url_kind='regexp', url_value='([a-' where id=1")
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        defer { _ = try? server.terminate() }
        XCTAssertEqual(try server.client().request("GET", "/b").text, "b")
        let warning = #"[warning] mocks row 1 (tenant ""): url_value is refused as an update would refuse it: "#
            + #"invalid regular expression "([a-": not a valid ICU regular expression; kept, the mock never matches; "#
            + "fix or delete the row (docs/schema.md#editing-mocks-rows)"
        let deadline = Date().addingTimeInterval(10)
        while !server.stderrText.contains(warning), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(server.stderrText.contains(warning), server.stderrText)
    }

    // MARK: - Helpers

    /// Runs `sql` on the file, starts the server, and asserts it exits 3 with `message` on
    /// stderr and no `DecodingError`, leaving no `-wal` or `-shm` beside the file (tester21b-F2).
    private func assertStartRefused(after sql: String, saying message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try edit(sql)
        let result = try start()
        XCTAssertEqual(result.status, 3, result.output, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(message), result.stderr, file: file, line: line)
        XCTAssertFalse(result.stderr.contains("DecodingError"), result.stderr, file: file, line: line)
        for suffix in ["-wal", "-shm"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: database + suffix), "left \(suffix)", file: file, line: line)
        }
    }

    /// Runs `sql` on the stopped server's file, as `sqlite3 x.sqlite "<sql>"` does.
    private func edit(_ sql: String) throws {
        let connection = try Database(path: database, mode: .readWrite)
        defer { connection.close() }
        try connection.execute(sql)
    }

    /// Starts `catbird` on the file and waits for it to exit (30 s at most).
    private func start() throws -> ProcessRunner.Result {
        try E2E.startOnce(database: database, in: directory)
    }
}
