import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/requests/wait` with a `since` the journal never issued: a 400 at once,
/// not a timeout that says nothing arrived (docs/protocol.md#waiting-for-a-request).
final class WaitSinceTests: ServerTestCase {
    /// Regression (tester finding tester27a-F2): `{"pattern":{"method":"GET","url":{"kind":
    /// "equal","value":"/ws"}},"timeout":2,"since":9999999}` on a journal whose newest entry was
    /// 3373 timed out with `… after entry 9999999 the journal has: nothing` although `GET /ws`
    /// arrived during the wait. Now it is a 400 naming the newest id issued; a `since` the
    /// journal did issue still waits, even after a clear (ids are never reused).
    func testASinceTheJournalNeverIssuedIs400AndOneItIssuedStillWaits() throws {
        let tenant = E2E.tenantHeader("ws")
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/ws"}}"#
        XCTAssertEqual(try client.request("GET", "/ws", headers: tenant).status, 404)
        let first = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":2}"#, headers: tenant)
        XCTAssertEqual(first.status, 200, first.text)
        let id = try XCTUnwrap(first.object["id"] as? Int, first.text)

        let started = ContinuousClock.now
        let stale = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":2,"since":9999999}"#, headers: tenant)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "answered at once, not after the timeout")
        XCTAssertEqual(stale.status, 400, stale.text)
        XCTAssertEqual(stale.object["error"] as? Bool, true)
        let reason = try XCTUnwrap(stale.object["reason"] as? String)
        XCTAssertTrue(
            reason.hasPrefix("'since' 9999999 is not an id of this journal: the newest entry id this database has issued is \(id),"),
            reason)

        // Cleared: the tenant has no entry, but the id was issued, and the next one comes after it.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: tenant).status, 200)
        XCTAssertEqual(try client.request("GET", "/ws", headers: tenant).status, 404)
        let next = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":2,"since":\#(id)}"#, headers: tenant)
        XCTAssertEqual(next.status, 200, next.text)
        XCTAssertGreaterThan(next.object["id"] as? Int ?? 0, id, next.text)
    }

    /// Regression (tester finding tester54c-F3, its steps on one keep-alive connection: `GET`
    /// a mock, then at once a wait with `"timeout":0` and `since` the id of that `GET`): the
    /// `since` was checked against the committed ids only, so it was refused 400 ("the newest
    /// entry id this database has issued is N-1") in 30 rounds of 30 while the row was still
    /// queued. Now the check waits for the writer first: every round answers 408 (nothing after
    /// that id matches the pattern), none 400.
    func testASinceOfARequestAnsweredAMomentAgoIsAcceptedWhileItsRowIsQueued() throws {
        let tenant = E2E.tenantHeader("ryw")
        try E2E.addMock(client, tenant: "ryw", url: "/x", body: "x")
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/nope"}}"#
        var refused: [String] = []
        for _ in 1...30 {
            XCTAssertEqual(try client.request("GET", "/x", headers: tenant).status, 200)
            let newest = try client.request("GET", "/catbird/api/requests?limit=1", headers: tenant)
            let id = try XCTUnwrap(newest.object["newestId"] as? Int, newest.text)
            // The next request's id: the one the harness counts on, asked for before its row is written.
            XCTAssertEqual(try client.request("GET", "/x", headers: tenant).status, 200)
            let wait = try client.json(
                "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0,"since":\#(id + 1)}"#, headers: tenant)
            if wait.status != 408 { refused.append("\(wait.status) \(wait.text)") }
        }
        XCTAssertEqual(refused, [], "every wait right after its request: 408, nothing after it matches")
    }
}
