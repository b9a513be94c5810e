import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` on a full disk (README.md#storage-faults, #durability): an answer
/// withheld with a 503 because its journal entry could not be written was not handed out, so
/// its mock's `limit` use is given back; the live mock table (`GET /catbird/api/mocks`) and the
/// `mocks` rows agree throughout, and once the disk has room the mock answers again.
///
/// Regression (try5 finding 6): the withheld answer spent the use in memory only: `/once`
/// (`limit: 1`) was gone from the listing (404 after recovery) while its row still said
/// `remaining_limit 1, hits 0`; a `limit: 1000` mock with 25 withheld answers listed
/// `969, 31` against SQL's `994, 6`. The full disk is the database capped at a few pages over
/// its size (SQLite's `max_page_count`, whose writes then fail with `SQLITE_FULL` as on a full
/// disk; no privileges needed).
final class StrictWithheldAnswerLimitTests: XCTestCase {
    func testAWithheldAnswerGivesItsLimitUseBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-withheld-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = CatbirdServer.Settings(port: 0, databasePath: directory.appendingPathComponent("strict.sqlite").path, logLevel: .error)
        settings.durability = .strict
        try CatbirdServer(settings: settings).stop()  // creates and migrates the file
        try E2E.capDatabase(&settings, pagesAbove: 3)
        var server = try CatbirdServer(settings: settings)
        try server.start()
        defer { server.stop() }
        var client = try RawHTTPClient(port: server.port)
        let tenant = "full1"
        try E2E.addMock(client, tenant: tenant, url: "/once", body: "OK", limit: 1)
        try E2E.addMock(client, tenant: tenant, url: "/many", body: "OK", limit: 1000)
        try E2E.addMock(client, tenant: tenant, url: "/fill", body: "x")

        // Journal rows fill the last pages: 404s with 2 KB bodies until one is withheld, then
        // small hits until three in a row are.
        XCTAssertTrue(try E2E.fillCappedDatabase(client, tenant: tenant, url: "/fill"), "the capped database never filled up")

        let once = try client.request("GET", "/once", headers: E2E.tenantHeader(tenant))
        E2E.assertError(once, status: 503, reasonContains: "could not be written to the journal")
        var many: [Int] = []
        for _ in 0..<25 { many.append(try client.request("GET", "/many", headers: E2E.tenantHeader(tenant)).status) }
        XCTAssertTrue(many.contains(503), "\(many)")
        let delivered = many.filter { $0 == 200 }.count
        let expected = [["/many", "\(1000 - delivered)", "\(delivered)"], ["/once", "1", "0"]]
        XCTAssertEqual(try listed(client, tenant), expected, "the live table: every withheld answer's use given back")
        XCTAssertEqual(try stored(settings.databasePath, tenant), expected, "the mocks rows")

        // Room again: the journal is deleted (its pages freed), and the next commit ends the fault.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader(tenant)).status, 200)
        var recovered = try client.request("GET", "/fill", headers: E2E.tenantHeader(tenant))
        let deadline = ContinuousClock.now + .seconds(20)
        while recovered.status != 200, ContinuousClock.now < deadline {
            usleep(100_000)
            recovered = try client.request("GET", "/fill", headers: E2E.tenantHeader(tenant))
        }
        XCTAssertEqual(recovered.status, 200, recovered.text)
        let answered = try client.request("GET", "/once", headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answered.status, 200, answered.text)
        XCTAssertEqual(answered.text, "OK")
        let after = [["/many", "\(1000 - delivered)", "\(delivered)"]]
        XCTAssertEqual(try listed(client, tenant), after, "/once used up by the answer that went out")
        XCTAssertEqual(try stored(settings.databasePath, tenant), after)

        server.stop()
        settings.maxDatabasePages = nil
        server = try CatbirdServer(settings: settings)
        try server.start()
        client = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try listed(client, tenant), after, "after a restart")
    }

    /// The tenant's limited mocks as listed, by url: url, remainingLimit, hits.
    private func listed(_ client: RawHTTPClient, _ tenant: String) throws -> [[String]] {
        try E2E.mocks(client, tenant: tenant).compactMap { mock -> [String]? in
            guard let limit = JSONNumber.int(mock["remainingLimit"]) else { return nil }
            let url = ((mock["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String ?? "?"
            return [url, "\(limit)", "\(JSONNumber.int(mock["hits"]) ?? -1)"]
        }.sorted { $0[0] < $1[0] }
    }

    /// The tenant's limited mocks' rows in the file, by url: url, remaining_limit, hits.
    private func stored(_ path: String, _ tenant: String) throws -> [[String]] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return try db.query(
            "SELECT url_value, remaining_limit, hits FROM mocks WHERE tenant = ? AND remaining_limit IS NOT NULL ORDER BY url_value",
            [.text(tenant)]
        ).map { ["\($0[0].stringValue ?? "?")", "\($0[1].intValue ?? -1)", "\($0[2].intValue ?? -1)"] }
    }
}
