import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Mock hits whose journal rows the writer dropped for a lasting cause (here a statement error:
/// a trigger another connection adds refuses every change to the `mocks` rows, so each round
/// fails its three attempts): the writer holds them (`HeldHits`) and writes them to the `mocks`
/// row once the database takes them again, with no request needed to start a round, and
/// `catbird_journal_held_hits` shows them meanwhile (README.md#storage-faults).
final class HeldHitsTests: StorageTestCase {
    private var database: String { databasePath() }

    /// Regression (durable16 leftover): with a `limit: 10` mock, the trigger in place, three
    /// `GET /held` (answered from memory, their rows dropped after three failed attempts) and
    /// the trigger dropped, the `mocks` row still said 0 hits and 10 left 10 s later: the held
    /// hits waited for the next request's round (or the stop). Now they are written on their
    /// own: 3 and 7.
    func testHitsHeldAfterADroppedRoundReachTheMocksRowWithNoFurtherRequest() throws {
        let (server, client, refusal) = try serverHoldingThreeHits()
        defer { server.stop() }
        try refusal.execute("DROP TRIGGER refuse_hits")
        refusal.close()

        // No request from here on (control routes are not journaled): only the writer's own
        // round of the held hits can write them.
        let stored = try storedHitsAndRemaining(within: .seconds(10), until: { $0 == [3, 7] })
        XCTAssertEqual(stored, [3, 7], "the mocks row's hits and remaining_limit in the file")
        XCTAssertEqual(JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["remainingLimit"]), 7, "in memory")
    }

    /// Regression (durable16 leftover): held hits were counted nowhere a scrape sees (the hits a
    /// stop drops are counted once the server no longer answers). Now
    /// `catbird_journal_held_hits` says 3 while the trigger refuses them (before: absent), and 0
    /// once they are written.
    func testTheHeldHitsAreInTheMetrics() throws {
        let (server, client, refusal) = try serverHoldingThreeHits()
        defer { server.stop() }
        XCTAssertEqual(try E2E.metrics(client)["catbird_journal_held_hits"], 3)
        XCTAssertEqual(try storedHitsAndRemaining(within: .zero), [0, 10], "refused by the trigger")

        try refusal.execute("DROP TRIGGER refuse_hits")
        refusal.close()
        let deadline = ContinuousClock.now + .seconds(10)
        var held = try E2E.metrics(client)["catbird_journal_held_hits"]
        while held != 0 && ContinuousClock.now < deadline {
            usleep(100_000)
            held = try E2E.metrics(client)["catbird_journal_held_hits"]
        }
        XCTAssertEqual(held, 0, "written once the trigger is gone")
        XCTAssertEqual(try storedHitsAndRemaining(within: .zero), [3, 7])
    }

    // MARK: - Helpers

    /// A relaxed server on ``database`` with the mock `GET /held` (`limit: 10`), answered three
    /// times while a trigger refuses every `UPDATE` of `mock_rows` (the `mocks` view's table, migration 0014); returns once the writer dropped
    /// their three rows (`catbird_journal_dropped_rows_total`), so it holds their hits, with the
    /// test's connection that added the trigger `refuse_hits` (still in place).
    private func serverHoldingThreeHits() throws -> (CatbirdServer, RawHTTPClient, Database) {
        let server = try CatbirdServer(settings: CatbirdServer.Settings(port: 0, databasePath: database, logLevel: .error))
        try server.start()
        let client = try RawHTTPClient(port: server.port)
        try E2E.addMock(client, url: "/held", body: "held", limit: 10)
        let refusal = try Database(path: database)
        try refusal.execute("CREATE TRIGGER refuse_hits BEFORE UPDATE ON mock_rows BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        for _ in 0..<3 { XCTAssertEqual(try client.request("GET", "/held").status, 200) }
        let deadline = ContinuousClock.now + .seconds(20)
        while try E2E.metrics(client)["catbird_journal_dropped_rows_total"] != 3 && ContinuousClock.now < deadline { usleep(50_000) }
        XCTAssertEqual(try E2E.metrics(client)["catbird_journal_dropped_rows_total"], 3, "the rows are dropped after three attempts")
        return (server, client, refusal)
    }

    /// The `mocks` row's `hits` and `remaining_limit` as stored in ``database``, read on a
    /// connection of the test's own, read again until `until` holds or `within` passed.
    private func storedHitsAndRemaining(within limit: Duration, until: ([Int64?]) -> Bool = { _ in true }) throws -> [Int64?] {
        let deadline = ContinuousClock.now + limit
        while true {
            let file = try Database(path: database, mode: .readOnly)
            let row = try file.query("SELECT hits, remaining_limit FROM mocks").first
            file.close()
            let values = [row?[0].intValue, row?[1].intValue]
            if until(values) || ContinuousClock.now >= deadline { return values }
            usleep(100_000)
        }
    }
}
