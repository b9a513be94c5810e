import CatbirdTestSupport
import Foundation
import XCTest

/// `catbird_requests_total` counts requests answered, as docs/operations.md#metrics says;
/// requests that ended with nothing sent are counted apart (found by a new user: 4,021
/// connections that sent half a head and closed were counted as answered 499s, and their
/// durations went into the histogram).
final class UnansweredMetricsTests: ServerTestCase {
    func testRequestsThatEndedWithNothingSentAreCountedApart() throws {
        let before = try E2E.metrics(client)
        // Half a head, then a hang-up (the new user's case); and a client leaving a delayed mock.
        let raw = try server.client()
        try raw.send(raw: Array("GET /half HTTP/1.1\r\nHost: x\r\n".utf8))
        usleep(100_000)
        raw.hangUp()
        try E2E.addMock(client, url: "/slow", body: "late", delay: 1)
        let leaving = try server.client()
        try leaving.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)  // parked for its delay: the client leaves a chosen mock
        leaving.hangUp()
        let delayOver = ContinuousClock.now + .seconds(1)
        XCTAssertEqual(try client.request("GET", "/missing").status, 404)
        var after = try E2E.metrics(client)
        let deadline = ContinuousClock.now + .seconds(10)
        while after[#"catbird_requests_unanswered_total{reason="client_left"}"#] != 2, ContinuousClock.now < deadline {
            usleep(50_000)
            after = try E2E.metrics(client)
        }
        XCTAssertEqual(after[#"catbird_requests_unanswered_total{reason="client_left"}"#], 2, "\(after)")
        XCTAssertEqual(after[#"catbird_requests_unanswered_total{reason="timed_out"}"#], 0)
        let none4xx = #"catbird_requests_total{answered_by="none",status_class="4xx"}"#
        XCTAssertEqual(after[none4xx, default: 0] - before[none4xx, default: 0], 1, "only the 404 was answered")
        let mock2xx = #"catbird_requests_total{answered_by="mock",status_class="2xx"}"#
        XCTAssertEqual(after[mock2xx, default: 0] - before[mock2xx, default: 0], 0, "the delayed answer never went out")
        // Well after the 1 s delay has ended, a server that still sent the answer to the gone
        // client and counted it as a mock's 2xx (or counted it twice) shows it in a fresh scrape.
        let settled = delayOver + .milliseconds(1500)
        while ContinuousClock.now < settled { usleep(20_000) }
        let later = try E2E.metrics(client)
        XCTAssertEqual(later[mock2xx, default: 0] - before[mock2xx, default: 0], 0, "the delayed answer never went out, even after its delay: \(later)")
        XCTAssertEqual(later[#"catbird_requests_unanswered_total{reason="client_left"}"#], 2, "the left delayed request is counted unanswered once (the half head is the other): \(later)")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }.sorted(), [404, 499, 499])
    }
}
