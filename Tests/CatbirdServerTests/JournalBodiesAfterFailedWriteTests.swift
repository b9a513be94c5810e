import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// The journal writer forgets the bodies it shares (`JournalBodies`, docs/schema.md#response-bodies-stored-once)
/// after a failed write: the rolled-back transaction also rolled back `journal_bodies`'
/// AUTOINCREMENT, so an id it remembered from that transaction is handed to the next body
/// stored. Had it kept the id, a later row of the first body would point at that other body.
///
/// The failed write is a full disk: the database capped 40 pages over its size (SQLite's
/// `max_page_count`, whose writes then fail with `SQLITE_FULL`; as in
/// StrictWithheldAnswerLimitTests). `journal_bodies` still has room in its empty root page, so
/// the body is stored and the row, with a 2 KB request body, is what fails.
/// `--durability strict` with one client sending one request at a time makes every request a
/// batch of its own, answered only once its batch is written or dropped (503 after three
/// failed attempts).
final class JournalBodiesAfterFailedWriteTests: XCTestCase {
    func testABodyStoredInAFailedWriteIsNotConfusedWithTheNextBodyStored() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-bodies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = CatbirdServer.Settings(port: 0, databasePath: directory.appendingPathComponent("full.sqlite").path, logLevel: .error)
        settings.durability = .strict
        // Two bodies long enough to be shared (256 bytes or more), different bytes.
        let bodies = [
            "/a": String((0..<400).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) }),
            "/b": String((0..<400).map { Character(UnicodeScalar(UInt8(65 + $0 % 23))) }),
        ]
        // The mocks are added before the file is capped (they are loaded from it again).
        let uncapped = try CatbirdServer(settings: settings)
        try uncapped.start()
        let setup = try RawHTTPClient(port: uncapped.port)
        for (url, body) in bodies.sorted(by: { $0.key < $1.key }) { try E2E.addMock(setup, tenant: "t", method: "POST", url: url, body: body) }
        try E2E.addMock(setup, tenant: "fill", method: "POST", url: "/fill", body: "x")
        try E2E.addMock(setup, tenant: "fill", url: "/fill", body: "x")
        uncapped.stop()
        try E2E.capDatabase(&settings, pagesAbove: 40)
        let server = try CatbirdServer(settings: settings)
        try server.start()
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let file = try Database(path: settings.databasePath, mode: .readOnly)
        defer { file.close() }

        // /a's first row holds its body (the writer remembers it).
        XCTAssertEqual(try client.request("POST", "/a", headers: E2E.tenantHeader("t")).status, 200)

        // Rows with 2 KB request bodies fill the last pages; then small ones until three in a row fail.
        XCTAssertTrue(try E2E.fillCappedDatabase(client, tenant: "fill", url: "/fill"), "the capped database never filled up")

        // /a again, with a 2 KB request body: its body goes to journal_bodies (id 1), then its row
        // does not fit, and the write is rolled back.
        E2E.assertError(
            try client.request("POST", "/a", headers: E2E.tenantHeader("t"), body: Array(repeating: 0x63, count: 2048)),
            status: 503, reasonContains: "could not be written to the journal")
        XCTAssertEqual(try file.query("SELECT count(*) FROM journal_bodies").first?[0], .integer(0))
        // tester39b-F5: that 503 is Catbird's own, in place of the mock's answer: counted as
        // answered by none (it was `mock`, read as a mock answering 5xx).
        let metrics = try E2E.metrics(client)
        XCTAssertNil(metrics[#"catbird_requests_total{answered_by="mock",status_class="5xx"}"#].flatMap { $0 > 0 ? $0 : nil }, "\(metrics)")
        XCTAssertGreaterThanOrEqual(metrics[#"catbird_requests_total{answered_by="none",status_class="5xx"}"#] ?? 0, 1, "\(metrics)")

        // Room again: the filler's journal is deleted (in the background), and the next commit
        // ends the fault.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("fill")).status, 200)
        let deadline = ContinuousClock.now + .seconds(20)
        while try file.query("SELECT count(*) FROM journal_rows WHERE tenant = 'fill'").first?[0] != .integer(0), ContinuousClock.now < deadline {
            usleep(50_000)
        }
        var recovered = try client.request("GET", "/fill", headers: E2E.tenantHeader("fill"))
        while recovered.status != 200, ContinuousClock.now < deadline {
            usleep(100_000)
            recovered = try client.request("GET", "/fill", headers: E2E.tenantHeader("fill"))
        }
        XCTAssertEqual(recovered.status, 200, recovered.text)

        // /b three times (its body stored once, under the id the failed write had used), then /a.
        for url in ["/b", "/b", "/b", "/a", "/a", "/a"] {
            let answer = try client.request("POST", url, headers: E2E.tenantHeader("t"))
            XCTAssertEqual(answer.status, 200, "\(url): \(answer.text)")
            XCTAssertTrue(answer.text == bodies[url], "\(url) answered \(answer.text.prefix(60))…")
        }

        let rows = try E2E.sqlRows(client, "SELECT id, url FROM requests ORDER BY id", tenant: "t")
        XCTAssertEqual(rows.map { $0[1] as? String }, ["/a", "/b", "/b", "/b", "/a", "/a", "/a"])
        for row in rows {
            let id = try XCTUnwrap(JSONNumber.int(row[0]))
            let url = try XCTUnwrap(row[1] as? String)
            let stored = try client.request("GET", "/catbird/api/requests/\(id)/response/body", headers: E2E.tenantHeader("t"))
            XCTAssertEqual(stored.status, 200, stored.text)
            XCTAssertTrue(
                stored.body == Array(bodies[url]!.utf8),
                "row \(id) (\(url)) reads \(stored.body.count) bytes, not the body its answer had: \(stored.text.prefix(60))…")
        }
    }
}
