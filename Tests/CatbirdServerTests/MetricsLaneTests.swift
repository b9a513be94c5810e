import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird/metrics` runs on a thread of its own, in no tenant's turn
/// (docs/tenancy.md#fair-shares).
final class MetricsLaneTests: XCTestCase {
    /// Regression (try9b F11): header-less clients (4 loops of 3 MB `update`s) held the default
    /// tenant's quick-lane turn, and a scrape, which sends no parallel id either, queued behind
    /// them: p50 770 ms, max 2.3 s. Here the default tenant's quick turn is held for as long as
    /// the test wants: its journal writer is held (another connection has the file's write
    /// lock), so two header-less journal listings wait for the default tenant's queued row, the
    /// first on its quick thread, the second queued in its turn. A header-less scrape sent
    /// meanwhile answers while both still wait.
    func testAScrapeWithoutAParallelIDDoesNotWaitForTheDefaultTenantsQuickTurn() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        XCTAssertEqual(try client.request("GET", "/not-mocked").status, 404)  // a default-tenant row, queued

        let listed = Locked<[Int]>([])
        let group = DispatchGroup()
        let port = server.port
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                let status = (try? RawHTTPClient(port: port).request("GET", "/catbird/api/requests").status) ?? 0
                listed.append(status)
            }
        }
        E2E.waitUntilWaiting(server, 2)  // both listings received and parked off the workers

        let scrape = try client.request("GET", "/catbird/metrics")
        let listedDuringScrape = listed.value
        XCTAssertEqual(scrape.status, 200, scrape.text)
        XCTAssertTrue(scrape.text.contains("catbird_build_info{"), String(scrape.text.prefix(300)))
        // Answered while the held row was still waiting to be written, not once the writer gave
        // up on it (after three attempts of 5 s each, when the listings answer too).
        XCTAssertTrue(scrape.text.contains("\ncatbird_journal_dropped_rows_total 0\n"), "the scrape waited for the writer to give up")
        XCTAssertTrue(scrape.text.contains("\ncatbird_journal_dropped_amendments_total 0\n"), String(scrape.text.prefix(300)))
        XCTAssertEqual(listedDuringScrape, [], "the scrape answered while the default tenant's listings still waited")

        try hold.release()
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(listed.value, [200, 200], "the listings answer once the row is written")
    }
}

/// A scrape of a server whose stored counts cannot be read is still answered, with the other
/// metrics (the journal writer's failures matter most then) and the two stored counts' gauges
/// without a sample (docs/operations.md#metrics).
final class MetricsUnreadableCountsTests: XCTestCase {
    /// Re-read of flush17: `GET /catbird/metrics` answered `503 database unavailable` when the
    /// stored tenant and mock counts failed, so no metric of a degraded server could be
    /// scraped. The counts' read is made to fail here by renaming the `tenants` table away from
    /// a second connection (`no such table: tenants`), then back.
    func testAScrapeIsAnsweredWhenTheStoredCountsCannotBeRead() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/counted", body: "x")
        XCTAssertTrue(try client.request("GET", "/catbird/metrics").text.contains("\ncatbird_mocks 1\n"))

        let other = try Database(path: server.databasePath, mode: .readWrite)
        try other.run("ALTER TABLE tenants RENAME TO tenants_away")
        let scrape = try client.request("GET", "/catbird/metrics")
        try other.run("ALTER TABLE tenants_away RENAME TO tenants")
        XCTAssertEqual(scrape.status, 200, scrape.text)
        XCTAssertTrue(scrape.text.contains("\ncatbird_journal_dropped_rows_total 0\n"), scrape.text)
        XCTAssertTrue(scrape.text.contains("# TYPE catbird_mocks gauge\n"), scrape.text)
        XCTAssertFalse(scrape.text.contains("\ncatbird_mocks "), "no count it could not read: \(scrape.text)")
        XCTAssertFalse(scrape.text.contains("\ncatbird_tenants "), scrape.text)

        XCTAssertTrue(try client.request("GET", "/catbird/metrics").text.contains("\ncatbird_mocks 1\n"), "counted again")
        XCTAssertEqual(try client.request("GET", "/counted").text, "x")
    }
}
