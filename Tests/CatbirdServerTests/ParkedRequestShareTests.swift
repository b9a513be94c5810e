import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// One tenant's parked requests (a mock's delay, long polls, waits, forwarded requests) hold at
/// most 1/8 of the connection slots (docs/tenancy.md#fair-shares): the health check and other
/// tenants still get in, and a request past the share gets a JSON 429 at once.
final class ParkedRequestShareTests: XCTestCase {
    /// 64 connection slots: a tenant may park 8.
    private static let connectionLimit = 64
    private static let share = 8

    private func server() throws -> TestServer {
        try TestServer { $0.connectionLimit = Self.connectionLimit }
    }

    /// Waits up to 10 s until the scrape's `catbird_parked_requests` is `count`; the last value read.
    private func parkedRequests(_ client: RawHTTPClient, reaching count: Double) throws -> Double? {
        let deadline = ContinuousClock.now + .seconds(10)
        var value = try E2E.metrics(client)["catbird_parked_requests"]
        while value != count, ContinuousClock.now < deadline {
            usleep(50_000)
            value = try E2E.metrics(client)["catbird_parked_requests"]
        }
        return value
    }

    /// Asserts that the health check and `tenant`'s `GET target` (answered `ok`) both answer
    /// within 5 s, after the parked requests' refused connections idled for a second (closed
    /// for room when a client needs one).
    private func assertHealthAndTenantGetIn(
        _ server: TestServer, tenant: String, target: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        usleep(1_500_000)
        let began = ContinuousClock.now
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 8).request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 200, health.text, file: file, line: line)
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 8).request(
            "GET", target, headers: [("X-Catbird-Parallel-Id", tenant)])
        XCTAssertEqual(other.status, 200, other.text, file: file, line: line)
        XCTAssertEqual(other.text, "ok", file: file, line: line)
        XCTAssertLessThan(ContinuousClock.now - began, .seconds(5), "health and the other tenant answer promptly", file: file, line: line)
    }

    private func assertShareRefusal(_ answer: RawResponse, tenant: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer.status, 429, answer.text, file: file, line: line)
        XCTAssertEqual(answer.object["error"] as? Bool, true, answer.text, file: file, line: line)
        let reason = answer.object["reason"] as? String ?? ""
        for part in [
            "tenant \"\(tenant)\" already has \(Self.share) requests parked", "at most \(Self.share) per tenant",
            "1/8 of the server's \(Self.connectionLimit) connection slots", "docs/tenancy.md#fair-shares",
        ] {
            XCTAssertTrue(reason.contains(part), "\(part) in: \(reason)", file: file, line: line)
        }
    }

    /// Regression (tester finding tester22b-F2, scaled down to 64 slots): eight tenants each at
    /// their share (8 requests to a default-tenant mock with a day's `delay`) parked in every
    /// slot, none refused, and `GET /catbird/api/health` and another tenant's mock timed out.
    /// Now all tenants together park at most 56 (the slots less 1/8): the rest get a 429 that
    /// says so, and health and another tenant answer at once.
    func testEightTenantsAtTheirShareLeaveHealthAndOtherTenantsIn() throws {
        let server = try server()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/slowd", body: "late", delay: 86_400)
        try E2E.addMock(control, tenant: "B", url: "/hit", body: "ok")

        var parked: [RawHTTPClient] = []
        for tenant in 1...8 {
            for _ in 0..<Self.share {
                let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
                try client.send("GET", "/slowd", headers: [("X-Catbird-Parallel-Id", "p\(tenant)")])
                parked.append(client)
            }
        }
        try assertHealthAndTenantGetIn(server, tenant: "B", target: "/hit")

        let total = Self.connectionLimit - Self.connectionLimit / 8
        let fresh = try server.client()
        XCTAssertEqual(try parkedRequests(fresh, reaching: Double(total)), Double(total))
        let next = try RawHTTPClient(port: server.port, timeoutSeconds: 8).request(
            "GET", "/slowd", headers: [("X-Catbird-Parallel-Id", "p9")])
        XCTAssertEqual(next.status, 429, next.text)
        XCTAssertTrue(
            (next.object["reason"] as? String)?.contains(
                "the server already has \(total) requests parked, all tenants together") == true, next.text)
        withExtendedLifetime(parked) {}
    }

    /// Tester finding tester67b-F2, scaled to 64 slots: 300 long-held requests spread over 8
    /// tenants (there, long polls; here a day's `delay`), past what all tenants together may park.
    /// Each refused one got its 429 on a connection kept alive, which held a slot until it idled
    /// a second and was closed for room a few at a time: the health check and another tenant
    /// waited 13 s behind them. The 429 now closes its connection (`Connection: close`), so they
    /// get in at once, without the second the other tests wait.
    func testAParkedRequestsRefusalClosesItsConnection() throws {
        let server = try server()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/slowd", body: "late", delay: 86_400)
        try E2E.addMock(control, tenant: "B", url: "/hit", body: "ok")
        var held: [RawHTTPClient] = []
        for index in 0..<300 {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send("GET", "/slowd", headers: [("X-Catbird-Parallel-Id", "s\(index % 8 + 1)")])
            held.append(client)
        }
        defer { withExtendedLifetime(held) {} }
        let began = ContinuousClock.now
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 10).request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 200, health.text)
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 10).request("GET", "/hit", headers: [("X-Catbird-Parallel-Id", "B")])
        XCTAssertEqual(other.text, "ok")
        XCTAssertLessThan(ContinuousClock.now - began, .seconds(3), "health and the other tenant answer promptly")

        let refused = try RawHTTPClient(port: server.port, timeoutSeconds: 8)
        let answer = try refused.request("GET", "/slowd", headers: [("X-Catbird-Parallel-Id", "s1")])
        XCTAssertEqual(answer.status, 429, answer.text)
        XCTAssertEqual(answer.header("Connection"), "close")
        XCTAssertTrue(refused.readUntilClosed(within: 5).closed, "the server closed the refused connection")
    }

    /// Regression (tester finding T19A-F2, scaled down): tenant `hog` sends `GET /slow`, a mock
    /// with a day's `delay`, on 72 connections, more than the server's 64 slots. Before, every
    /// slot was parked for the delay and `GET /catbird/api/health` and another tenant's mock
    /// timed out. Now 8 are parked and the rest get the 429 at once (their hits given back, the
    /// refusals journaled), health and the other tenant answer, the hog's next request gets the
    /// 429, and once its clients leave its count is 0 again and it may park anew.
    func testATenantsDelayedRequestsLeaveHealthAndOtherTenantsIn() throws {
        let server = try server()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hog", url: "/slow", body: "late", delay: 86_400)
        try E2E.addMock(control, tenant: "victim", url: "/x", body: "ok")

        var hogs: [RawHTTPClient] = []
        for _ in 0..<72 {
            let hog = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try hog.send("GET", "/slow", headers: [("X-Catbird-Parallel-Id", "hog")])
            hogs.append(hog)
        }
        try assertHealthAndTenantGetIn(server, tenant: "victim", target: "/x")

        let next = try RawHTTPClient(port: server.port, timeoutSeconds: 8).request(
            "GET", "/slow", headers: [("X-Catbird-Parallel-Id", "hog")])
        assertShareRefusal(next, tenant: "hog")

        let fresh = try server.client()
        XCTAssertEqual(try parkedRequests(fresh, reaching: Double(Self.share)), Double(Self.share))
        XCTAssertGreaterThanOrEqual(try E2E.metrics(fresh)["catbird_parked_refused_total"] ?? 0, 65)
        let hits = try E2E.mocks(fresh, tenant: "hog").first.flatMap { JSONNumber.int($0["hits"]) }
        XCTAssertEqual(hits, Self.share, "only the parked requests hold a hit: the refused ones were given back")
        let refusals = try E2E.journal(fresh, tenant: "hog").filter { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) == 429 }
        XCTAssertGreaterThanOrEqual(refusals.count, 65, "each refusal journaled")
        XCTAssertEqual(refusals.first?["answeredBy"] as? String, "none")

        for hog in hogs { hog.hangUp() }
        XCTAssertEqual(try parkedRequests(fresh, reaching: 0), 0, "every place given back once the clients left")
        let again = try RawHTTPClient(port: server.port, timeoutSeconds: 8)
        try again.send("GET", "/slow", headers: [("X-Catbird-Parallel-Id", "hog")])
        XCTAssertEqual(try parkedRequests(fresh, reaching: 1), 1, "the hog parks again")
        XCTAssertTrue(again.read(upTo: 1, within: 0.2).isEmpty, "parked: no answer yet")
    }

    /// Long polls and waits take the same places as delays; a long poll whose client left gives
    /// its place back, although its wait lingers until its own timeout, and another tenant
    /// parks whatever the hog holds.
    func testLongPollsAndWaitsShareThePlacesAndGiveThemBackWhenTheirClientsLeave() throws {
        let server = try server()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hog", url: "/slow", body: "late", delay: 86_400)
        let hog = [("X-Catbird-Parallel-Id", "hog")]
        let poll = "/catbird/api/requests?since=99999999&wait=25"
        let wait = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":25}"#

        var parked: [RawHTTPClient] = []
        for index in 0..<Self.share {
            let client = try server.client()
            if index < 6 {
                try client.send("GET", poll, headers: hog)
            } else {
                try client.send("POST", "/catbird/api/requests/wait", headers: [("Content-Type", "application/json")] + hog, body: Array(wait.utf8))
            }
            parked.append(client)
        }
        XCTAssertEqual(try parkedRequests(control, reaching: Double(Self.share)), Double(Self.share))
        assertShareRefusal(try server.client().request("GET", poll, headers: hog), tenant: "hog")
        assertShareRefusal(try server.client().json("POST", "/catbird/api/requests/wait", wait, headers: hog), tenant: "hog")
        assertShareRefusal(try server.client().request("GET", "/slow", headers: hog), tenant: "hog")
        let plainListing = try server.client().request("GET", "/catbird/api/requests", headers: hog)
        XCTAssertEqual(plainListing.status, 200, "a listing without wait= parks nothing: \(plainListing.text)")

        let other = try server.client()
        try other.send("GET", poll, headers: [("X-Catbird-Parallel-Id", "other")])
        XCTAssertEqual(try parkedRequests(control, reaching: Double(Self.share + 1)), Double(Self.share + 1))
        XCTAssertTrue(other.read(upTo: 1, within: 0.2).isEmpty, "the other tenant's long poll is parked, not refused")

        for client in parked { client.hangUp() }
        other.hangUp()
        XCTAssertEqual(try parkedRequests(control, reaching: 0), 0, "every place given back once the clients left")
        let again = try server.client()
        try again.send("GET", poll, headers: hog)
        XCTAssertEqual(try parkedRequests(control, reaching: 1), 1, "the hog parks again")
    }

    /// A forwarded request holds a place while the upstream works; past the share the 429 is
    /// journaled and marked as Catbird's own (redirect mode), and nothing is forwarded.
    func testForwardedRequestsTakeTheTenantsPlaces() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let server = try TestServer {
            $0.connectionLimit = Self.connectionLimit
            $0.redirectURL = upstream.baseURL
        }
        defer { server.removeFiles() }
        let hog = [("X-Catbird-Parallel-Id", "hog")]
        var parked: [RawHTTPClient] = []
        for _ in 0..<Self.share {
            let client = try server.client()
            try client.send("GET", "/slow/20", headers: hog)
            parked.append(client)
        }
        let control = try server.client()
        XCTAssertEqual(try parkedRequests(control, reaching: Double(Self.share)), Double(Self.share))
        let refused = try server.client().request("GET", "/slow/20", headers: hog)
        assertShareRefusal(refused, tenant: "hog")
        XCTAssertNotNil(refused.header("X-Catbird-Generated-By"), "marked as Catbird's own: \(refused.headers)")
        let journal = try E2E.journal(control, tenant: "hog", once: 1)
        XCTAssertEqual(JSONNumber.int((journal.first?["response"] as? [String: Any])?["status"]), 429)
        XCTAssertEqual(journal.first?["answeredBy"] as? String, "none")

        for client in parked { client.hangUp() }
        XCTAssertEqual(try parkedRequests(control, reaching: 0), 0, "every place given back once the clients left")
    }
}
