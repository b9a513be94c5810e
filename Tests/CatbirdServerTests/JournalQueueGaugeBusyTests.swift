import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50c-F5), the exact case: while another connection held the
/// database's lock, five answered requests waited in the journal writer's round, and
/// `catbird_journal_queue_entries` and `_bytes` read 0 for the whole outage (health alone said
/// so); a fleet's alert on the gauge never fired. The round under way is counted in now.
final class JournalQueueGaugeBusyTests: XCTestCase {
    func testEntriesWaitingInABusyRoundAreCounted() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/m", body: "m")
        let holder = try Database(path: server.databasePath)
        try holder.execute("BEGIN EXCLUSIVE")
        for _ in 1...5 { XCTAssertEqual(try client.request("GET", "/m").status, 200) }
        usleep(1_000_000)  // the writer took the five into its round, which waits for the lock
        let metrics = try E2E.metrics(client)
        try holder.execute("COMMIT")
        holder.close()
        XCTAssertEqual(metrics["catbird_journal_queue_entries"], 5, "\(metrics)")
        XCTAssertGreaterThan(metrics["catbird_journal_queue_bytes"] ?? 0, 0, "\(metrics)")
        // Written once the lock is gone; the gauges go back to 0.
        let deadline = ContinuousClock.now + .seconds(15)
        while try E2E.metrics(client)["catbird_journal_queue_entries"] != 0, ContinuousClock.now < deadline { usleep(50_000) }
        XCTAssertEqual(try E2E.metrics(client)["catbird_journal_queue_entries"], 0)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 5)
    }
}
