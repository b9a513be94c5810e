import CatbirdTestSupport
import Foundation
import XCTest

/// tester43a-F5: a journal long poll (`wait=`) or a `POST /catbird/api/requests/wait` whose
/// client hung up had its connection closed at once, but its 499 was logged and counted, and
/// its journal waiter (with the wait's pattern and body) let go, only when the wait ran out or
/// an entry woke it: up to 60 or 300 s later. Now both happen when the client leaves, as for a
/// delayed mock (docs/protocol.md#delays).
final class AbandonedJournalWaitTests: ServerTestCase {
    private static let tenant = ("X-Catbird-Parallel-Id", "gone")
    private static let leftCount = #"catbird_requests_unanswered_total{reason="client_left"}"#
    private static let waiterTenants = #"catbird_tenant_memory_entries{kind="journal_waiters"}"#

    /// The finding's two requests (a 60-s long poll, a 300-s wait), each on a connection of its own.
    private func startPollAndWait() throws -> [RawHTTPClient] {
        let poll = try server.client()
        try poll.send("GET", "/catbird/api/requests?bodies=false&since=0&wait=60", headers: [Self.tenant])
        let wait = try server.client()
        let body = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":300}"#
        try wait.send(
            "POST", "/catbird/api/requests/wait", headers: [Self.tenant, ("Content-Type", "application/json")], body: Array(body.utf8))
        return [poll, wait]
    }

    /// Polls the metrics for up to `seconds` until `done` holds; returns the last scrape.
    private func metrics(within seconds: Int64, until done: ([String: Double]) -> Bool) throws -> [String: Double] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var samples = try E2E.metrics(client)
        while !done(samples), ContinuousClock.now < deadline {
            usleep(20_000)
            samples = try E2E.metrics(client)
        }
        return samples
    }

    func testAnAbandonedLongPollAndWaitAreLetGoWhenTheirClientsLeave() throws {
        // Both waiting on the journal (their waiters registered), then both clients hang up.
        let clients = try startPollAndWait()
        E2E.waitUntilWaiting(server, 2)
        let waiting = try metrics(within: 10) { $0[Self.waiterTenants] == 1 }
        XCTAssertEqual(waiting[Self.waiterTenants], 1, "the poll and the wait wait on tenant gone's journal")
        XCTAssertEqual(waiting[Self.leftCount], 0)
        let hungUp = ContinuousClock.now
        for client in clients { client.hangUp() }

        let after = try metrics(within: 10) { $0[Self.leftCount] == 2 && $0[Self.waiterTenants] == 0 }
        XCTAssertEqual(after[Self.leftCount], 2, "both counted as 499s when their clients left, not when their waits end")
        XCTAssertEqual(after[Self.waiterTenants], 0, "their journal waiters were let go")
        XCTAssertLessThan(ContinuousClock.now - hungUp, .seconds(10))
        E2E.waitUntilWaiting(server, 0)

        // Clients that leave before their first look: the waiter registered after is let go too.
        for client in try startPollAndWait() { client.hangUp() }
        let again = try metrics(within: 10) { $0[Self.leftCount] == 4 && $0[Self.waiterTenants] == 0 }
        XCTAssertEqual(again[Self.leftCount], 4)
        XCTAssertEqual(again[Self.waiterTenants], 0)

        // The tenant's journal still wakes a live long poll.
        let live = try server.client()
        try live.send("GET", "/catbird/api/requests?bodies=false&since=0&wait=30", headers: [Self.tenant])
        E2E.waitUntilWaiting(server, 1)
        XCTAssertEqual(try client.request("GET", "/anything", headers: [Self.tenant]).status, 404)
        let page = try live.readResponse()
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains(#""url":"/anything""#), page.text)
    }
}
