import CatbirdDomain
import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A response body a tenant's rows repeat is stored once (migrations/0010_requests_response_bodies_once.sql,
/// docs/schema.md#tables): over a real server and its SQLite file, every reader (the SQL route,
/// the journal routes, HAR, the `sqlite3` CLI) gets the bytes the app received, old rows read
/// as before the migration, and deleting rows (clear, drop, retention) leaves no body behind.
final class JournalBodiesOnceTests: XCTestCase {
    /// A mix: one mock's 3,000-byte body three times, a tiny body, 404s of one url polled and of
    /// urls that differ, HEAD 404s, and the same 404s in a second tenant.
    private let requests: [(method: String, target: String, tenant: String)] = [
        ("GET", "/big", "t"), ("GET", "/miss/same", "t"), ("GET", "/small", "t"), ("GET", "/big", "t"),
        ("GET", "/miss/same", "t"), ("GET", "/miss/abc", "t"), ("HEAD", "/miss/same", "t"), ("GET", "/miss/xyz", "t"),
        ("GET", "/big", "t"), ("GET", "/miss/same", "u"), ("GET", "/miss/same", "u"), ("GET", "/miss/caf%C3%A9?q=1", "t"),
        ("GET", "/miss/same", "t"), ("HEAD", "/miss/abc", "t"), ("GET", "/small", "t"), ("GET", "/miss/abd", "t"),
    ]
    private let bigBody = String((0..<3000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })

    /// Adds the mocks, sends `requests` and returns the answers, in order.
    private func sendMix(_ client: RawHTTPClient) throws -> [RawResponse] {
        for tenant in ["t", "u"] {
            try E2E.addMock(client, tenant: tenant, url: "/big", body: bigBody)
            try E2E.addMock(client, tenant: tenant, url: "/small", body: "s")
            try E2E.addMock(client, tenant: tenant, url: "/mocked/one/path", body: "x")
            try E2E.addMock(client, tenant: tenant, url: "/miss/*", kind: "wildcard", headerPatterns: ["X-Never": ("equal", "1")], body: "x")
        }
        return try requests.map { try client.request($0.method, $0.target, headers: E2E.tenantHeader($0.tenant)) }
    }

    /// Every `response_body_id` resolves, and each body's `refs` is the number of rows pointing at it.
    private func assertBodiesConsistent(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let db = try Database(path: path, mode: .readOnly)
        let dangling = try db.query("""
            SELECT count(*) FROM journal_rows r WHERE r.response_body_id IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM journal_bodies b WHERE b.id = r.response_body_id)
            """)
        XCTAssertEqual(dangling.first?[0], .integer(0), "rows pointing at no body", file: file, line: line)
        let miscounted = try db.query("""
            SELECT count(*) FROM journal_bodies b
            WHERE b.refs <> (SELECT count(*) FROM journal_rows r WHERE r.response_body_id = b.id) OR b.refs < 1
            """)
        XCTAssertEqual(miscounted.first?[0], .integer(0), "bodies whose refs are not their rows", file: file, line: line)
    }

    private func scalar(_ path: String, _ sql: String) throws -> SQLiteValue? {
        try Database(path: path, mode: .readOnly).query(sql).first?[0]
    }

    func testEveryReaderGetsTheBytesTheAppReceived() throws {
        let test = try TestServer()
        defer { test.removeFiles() }
        let client = try test.client()
        let answers = try sendMix(client)
        XCTAssertEqual(answers.map(\.status), requests.map { $0.target.hasPrefix("/miss") ? 404 : 200 })

        for tenant in ["t", "u"] {
            let sent = zip(requests, answers).filter { $0.0.tenant == tenant }
            let rows = try E2E.sqlRows(
                client, "SELECT id, method, url, hex(response_body), near_misses, response_body_size FROM requests ORDER BY id",
                tenant: tenant)
            XCTAssertEqual(rows.count, sent.count, tenant)
            for (row, (request, answer)) in zip(rows, sent) {
                let id = try XCTUnwrap(JSONNumber.int(row[0]))
                XCTAssertEqual(row[1] as? String, request.method)
                XCTAssertEqual(row[2] as? String, request.target)
                // A HEAD answer has no body; the journal stores none.
                XCTAssertEqual(row[3] as? String, answer.body.map { String(format: "%02X", $0) }.joined(), "\(request)")
                guard request.method == "GET" else { continue }
                XCTAssertEqual(JSONNumber.int(row[5]), answer.body.count, "\(request)")
                if request.target.hasPrefix("/miss"), request.method == "GET" {
                    let nearMisses = try XCTUnwrap(row[4] as? String, "\(request)")
                    XCTAssertTrue(answer.text.contains(#""nearMisses":"# + nearMisses), "\(request): \(nearMisses)")
                }
                let stored = try client.request("GET", "/catbird/api/requests/\(id)/response/body", headers: E2E.tenantHeader(tenant))
                XCTAssertEqual(stored.status, 200)
                XCTAssertEqual(stored.body, answer.body, "response/body of \(request)")
            }
            // HAR: each entry's response text is the body received.
            let har = try client.request("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader(tenant)).object
            let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
            XCTAssertEqual(entries.count, sent.count)
            for (entry, (request, answer)) in zip(entries, sent) where !answer.body.isEmpty {
                let content = (entry["response"] as? [String: Any])?["content"] as? [String: Any] ?? [:]
                let text = content["text"] as? String ?? ""
                let bytes = content["encoding"] as? String == "base64" ? Data(base64Encoded: text).map(Array.init) : Array(text.utf8)
                XCTAssertEqual(bytes, answer.body, "HAR of \(request)")
            }
        }

        // What the SQL route's views and a plain connection read is what the sqlite3 CLI reads.
        let query = "SELECT id, tenant, url, hex(response_body), near_misses, response_body_truncated FROM requests ORDER BY id"
        let plain = try Database(path: test.databasePath, mode: .readOnly).query(query).map { row in
            row.values.map { value -> String in
                switch value {
                case .null: ""
                case let .integer(number): String(number)
                case let .text(text): text
                default: "?"
                }
            }.joined(separator: "|")
        }
        XCTAssertEqual(plain.count, requests.count)
        let cli = try sqlite3(test.databasePath, query)
        XCTAssertEqual(cli, plain)

        // Stored once: the big body (3 rows of t: the first holds it, two point at one body),
        // /miss/same of t (polled: 3 GETs) and of u, and the 404s of urls that differ only in
        // themselves (/miss/abc, /miss/xyz, /miss/abd share a body with /miss/same when their
        // closest mocks are the same).
        let pointing = try XCTUnwrap(scalar(test.databasePath, "SELECT count(*) FROM journal_rows WHERE response_body_id IS NOT NULL")?.intValue)
        XCTAssertGreaterThanOrEqual(pointing, 5, "rows pointing at a stored body")
        let bodies = try XCTUnwrap(scalar(test.databasePath, "SELECT count(*) FROM journal_bodies")?.intValue)
        XCTAssertLessThan(bodies, pointing)
        XCTAssertEqual(try scalar(test.databasePath, "SELECT count(*) FROM journal_bodies WHERE url_marked = 1")?.intValue.map { $0 > 0 }, true)
        try assertBodiesConsistent(test.databasePath)
    }

    /// Bodies cut by the journal body limit are stored once too, cut the same way.
    func testTruncatedBodiesReadTheSame() throws {
        let test = try TestServer { $0.journalBodyLimit = 300 }
        defer { test.removeFiles() }
        let client = try test.client()
        let answers = try sendMix(client)
        let rows = try E2E.sqlRows(
            client, "SELECT hex(response_body), response_body_size, response_body_truncated, near_misses IS NULL FROM requests ORDER BY id",
            tenant: "t")
        let sent = zip(requests, answers).filter { $0.0.tenant == "t" }
        XCTAssertEqual(rows.count, sent.count)
        for (row, (request, answer)) in zip(rows, sent) {
            XCTAssertEqual(row[0] as? String, answer.body.prefix(300).map { String(format: "%02X", $0) }.joined(), "\(request)")
            XCTAssertEqual(JSONNumber.int(row[1]), answer.body.count)
            XCTAssertEqual(JSONNumber.int(row[2]), answer.body.count > 300 ? 1 : 0)
            XCTAssertEqual(JSONNumber.int(row[3]), request.target.hasPrefix("/miss") ? 0 : 1, "near misses kept whole: \(request)")
        }
        XCTAssertEqual(try scalar(test.databasePath, "SELECT count(*) FROM journal_bodies WHERE length(body) = 300")?.intValue, 1)
        try assertBodiesConsistent(test.databasePath)
    }

    /// A journal clear and a tenant drop (both deleted in the background) and retention by row
    /// count leave no body that no row points at.
    func testClearDropAndRetentionLeaveNoBodies() throws {
        let test = try TestServer {
            $0.retention = .init(tenantTTL: nil, journalMaxRows: 20, journalMaxAge: nil)
            $0.retentionInterval = .milliseconds(100)
        }
        defer { test.removeFiles() }
        let client = try test.client()
        _ = try sendMix(client)
        _ = try sendMix(client)
        let path = test.databasePath
        // Retention keeps the newest 20 of 32 rows; bodies of pruned rows whose body a kept row
        // still points at stay.
        try waitUntil("retention pruned to 20 rows") { try self.scalar(path, "SELECT count(*) FROM journal_rows")?.intValue == 20 }
        try assertBodiesConsistent(path)
        XCTAssertGreaterThan(try XCTUnwrap(scalar(path, "SELECT count(*) FROM journal_bodies")?.intValue), 0)

        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("t")).status, 200)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/u").status, 204)
        try waitUntil("every row deleted") { try self.scalar(path, "SELECT count(*) FROM journal_rows")?.intValue == 0 }
        XCTAssertEqual(try scalar(path, "SELECT count(*) FROM journal_bodies")?.intValue, 0, "no body left behind")
        // And the writer, which remembers those bodies, stores them again rather than pointing at nothing.
        _ = try sendMix(client)
        try waitUntil("the mix journaled again") { try self.scalar(path, "SELECT count(*) FROM journal_rows")?.intValue == 16 }
        try assertBodiesConsistent(path)
        let rows = try E2E.sqlRows(client, "SELECT count(*) FROM requests WHERE response_body IS NULL AND method = 'GET'", tenant: "t")
        XCTAssertEqual(JSONNumber.int(rows.first?.first ?? nil), 0, "every GET row reads its body")
    }

    /// Rows journaled before migration 0010 read the same after it, value for value, column for
    /// column, in the same `SELECT *` order.
    func testRowsJournaledBeforeTheMigrationReadTheSame() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let db = try Database(path: path)
        let before = Schema.migrations.filter { $0.version < 10 }
        XCTAssertEqual(try Migrator.migrate(db, migrations: before), before.map(\.version))
        let body = Array(#"{"error":true,"nearMisses":[{"mockId":1}],"reason":"no mock matched GET /old"}"#.utf8)
        let nearMisses = Array(#"[{"mockId":1}]"#.utf8)
        let offset = try XCTUnwrap(body.firstIndex(of: UInt8(ascii: "["))) + 1
        try db.execute("INSERT INTO tenants VALUES ('t', 'c', 'l')")
        let insert = """
            INSERT INTO requests (time, tenant, method, url, request_headers, request_body, request_body_size, status,
                response_headers, response_body, response_body_size, response_body_truncated, answered_by, mock_id,
                duration_ms, near_misses_copy, near_misses_offset, near_misses_length, problem)
            VALUES ('2026-12-01T10:00:00.000Z', 't', ?, ?, '{"A":"b"}', ?, ?, ?, '{}', ?, ?, ?, ?, ?, 1.5, ?, ?, ?, ?)
            """
        try db.run(insert, [.text("GET"), .text("/old"), .null, .integer(0), .integer(404), .blob(body), .integer(Int64(body.count)),
                            .integer(0), .text("none"), .null, .null, .integer(Int64(offset)), .integer(Int64(nearMisses.count)), .null])
        try db.run(insert, [.text("HEAD"), .text("/old"), .null, .integer(0), .integer(404), .null, .integer(80), .integer(0),
                            .text("none"), .null, .text("[]"), .null, .null, .null])
        try db.run(insert, [.text("POST"), .text("/hit"), .blob([0, 1, 2]), .integer(3), .integer(200), .blob(Array("ok".utf8)),
                            .integer(2), .integer(0), .text("mock"), .integer(7), .null, .null, .null, .null])
        try db.run(insert, [.text("GET"), .text("/gone"), .null, .integer(0), .integer(499), .null, .integer(0), .integer(0),
                            .text("none"), .null, .null, .null, .null, .text("the client left")])
        let old = try db.query("SELECT * FROM requests ORDER BY id")
        XCTAssertEqual(old.first?.columns.count, 23)

        XCTAssertEqual(try Migrator.migrate(db, migrations: Schema.migrations), Schema.migrations.map(\.version).filter { $0 >= 10 })
        let new = try db.query("SELECT * FROM requests ORDER BY id")
        XCTAssertEqual(new.map(\.columns), old.map(\.columns))
        XCTAssertEqual(new.map(\.values), old.map(\.values))
        XCTAssertEqual(try db.query("SELECT typeof(response_body) FROM requests ORDER BY id").map { $0[0] },
                       [.text("blob"), .text("null"), .text("blob"), .text("null")])
        XCTAssertEqual(try db.query("SELECT near_misses FROM requests WHERE id = 1").first?[0], .text(String(decoding: nearMisses, as: UTF8.self)))
        // New rows keep counting from the old ones (AUTOINCREMENT's sequence moved with the table).
        try db.run("INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('t', 't', 'GET', '/n', 200, 'mock', 1)")
        XCTAssertEqual(db.lastInsertRowID, 5)
        db.close()

        // A server on the migrated file serves the old rows through the journal routes.
        let test = try TestServer { $0.databasePath = path }
        defer { test.stop() }
        let client = try test.client()
        let stored = try client.request("GET", "/catbird/api/requests/1/response/body", headers: E2E.tenantHeader("t"))
        XCTAssertEqual(stored.body, body)
        let cli = try sqlite3(path, "SELECT count(*), sum(length(response_body)) FROM requests")
        XCTAssertEqual(cli, ["5|\(body.count + 2)"])
    }

    // MARK: helpers

    private func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("never: \(what)", file: file, line: line)
    }

    /// The `sqlite3` CLI's output lines for `query` on the file (read-only); skips when the CLI is
    /// missing (scripts/setup.sh installs it).
    private func sqlite3(_ path: String, _ query: String) throws -> [String] {
        let cli = "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: cli) else {
            throw XCTSkip("sqlite3 CLI not installed at \(cli) (scripts/setup.sh installs the Debian package sqlite3)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = ["-readonly", "-separator", "|", "-nullvalue", "", path, query]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
