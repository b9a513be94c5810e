import CatbirdTestSupport
import Foundation
import XCTest

/// A client that hangs up while a mock's `delay` runs is let go at once: its hit is given back
/// (a limited mock keeps its use) and it is journaled as 499 with the time it waited, never as
/// the mock's answer (docs/protocol.md#delays).
final class AbandonedDelayTests: ServerTestCase {
    private func mock(_ url: String) throws -> [String: Any]? {
        try E2E.mocks(client, tenant: nil).first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == url }
    }

    /// Waits up to 10 s until the mock for `url` is used up: listed with `remainingLimit` 0
    /// while its answer waits (tester finding tester50b-F7).
    private func waitUntilUsedUp(_ url: String) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try JSONNumber.int(mock(url)?["remainingLimit"]) != 0, ContinuousClock.now < deadline { usleep(2000) }
        XCTAssertEqual(try JSONNumber.int(mock(url)?["remainingLimit"]), 0, "the request used the mock up")
    }

    /// Sends `GET url` on a new connection, waits until the server counted the hit, hangs up,
    /// and returns the journal entry written for it (waiting up to `delay` for it).
    private func abandon(_ url: String, hitsAfter: Int, delay: Duration) throws -> [String: Any]? {
        let raw = try server.client()
        try raw.send(raw: Array("GET \(url) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        if hitsAfter > 0 {
            XCTAssertTrue(try E2E.waitForHits(client, url: url, hitsAfter), "the request was matched and parked")
        } else {
            try waitUntilUsedUp(url)
        }
        let hungUp = ContinuousClock.now
        raw.hangUp()  // the client gives up
        while ContinuousClock.now - hungUp < delay {
            if let entry = try E2E.journal(client, tenant: nil, query: "url=\(url)").first { return entry }
            usleep(5000)
        }
        return nil
    }

    /// The case: `limit: 1, delay: 2`, client gone after the match: the mock was spent,
    /// the request journaled as answered 200 when the delay ended, the connection held.
    func testAClientThatGivesUpDuringADelayKeepsTheLimitAndIsJournaledAsGone() throws {
        try E2E.addMock(client, url: "/slow", body: "slow", limit: 1, delay: 2)
        let started = ContinuousClock.now
        // Its one use taken, the mock is listed used up while the answer waits.
        let entry = try XCTUnwrap(try abandon("/slow", hitsAfter: 0, delay: .seconds(2)), "journaled before the delay ended")
        let response = entry["response"] as? [String: Any] ?? [:]
        XCTAssertEqual(JSONNumber.int(response["status"]), 499)
        XCTAssertEqual(response["headers"] as? [String: String], [:], "nothing was sent")
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), 0)
        XCTAssertEqual(entry["answeredBy"] as? String, "none")
        XCTAssertTrue(E2E.isNull(entry["mockId"]))
        let waited = JSONNumber.double(entry["durationMs"]) ?? -1
        XCTAssertGreaterThan(waited, 0)
        XCTAssertLessThan(waited, 2000, "the time it waited, not the delay")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "let go before the delay ended")

        // The used-up mock came back with its one use.
        let restored = try XCTUnwrap(try mock("/slow"), "the limited mock is still there")
        XCTAssertEqual(JSONNumber.int(restored["hits"]), 0)
        XCTAssertEqual(JSONNumber.int(restored["remainingLimit"]), 1)
        let answer = try server.client().request("GET", "/slow")
        XCTAssertEqual(answer.text, "slow")
        XCTAssertNil(try mock("/slow"), "used up by the request that waited")
        let statuses = try E2E.journal(client, tenant: nil).map { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }
        XCTAssertEqual(statuses, [499, 200])
    }

    func testAnUnusedHitIsGivenBackToAMockWithUsesLeft() throws {
        try E2E.addMock(client, url: "/twice", body: "t", limit: 2, delay: 30)
        XCTAssertNotNil(try abandon("/twice", hitsAfter: 1, delay: .seconds(10)))
        let restored = try XCTUnwrap(try mock("/twice"))
        XCTAssertEqual(JSONNumber.int(restored["hits"]), 0)
        XCTAssertEqual(JSONNumber.int(restored["remainingLimit"]), 2)
    }

    /// A mock replaced while a request it used up waits is not brought back by that request's
    /// client hanging up, and does not come back after a restart either.
    func testAReplacedMockIsNotBroughtBack() throws {
        try E2E.addMock(client, url: "/r", body: "old", limit: 1, delay: 30)
        let raw = try server.client()
        try raw.send(raw: Array("GET /r HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        try waitUntilUsedUp("/r")
        try E2E.addMock(client, url: "/r", body: "new")
        raw.hangUp()
        let deadline = ContinuousClock.now + .seconds(10)
        while try E2E.journal(client, tenant: nil).isEmpty, ContinuousClock.now < deadline { usleep(5000) }
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1)
        XCTAssertEqual(try client.request("GET", "/r").text, "new")
        try server.restart()
        let restarted = try server.client()
        XCTAssertEqual(try E2E.mocks(restarted, tenant: nil).count, 1)
        XCTAssertEqual(try restarted.request("GET", "/r").text, "new")
    }
}
