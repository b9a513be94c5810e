import CatbirdTestSupport
import Foundation
import XCTest

/// A request that is no longer waiting when its turn on the matching lane comes is not matched:
/// it spends no mock `limit` and does not pass as answered; a client that hung up is journaled
/// as 499 with the time it waited (docs/tenancy.md#slow-regular-expressions).
///
/// Found by a reviewer (exact inputs): tenant `t` has the url regexp mock `(a|aa)+$` first, then
/// a `limit: 1` mock for `/x` (so `/x` meets the slow expression first and goes to the lane);
/// its lane queue is filled with slow requests (`/` + 3,000 `a` + `!`); `/x` is sent by a client
/// that hangs up after 1 s. The lane ran `/x`'s job anyway: the mock was spent, the journal and
/// the metrics showed a 200 that was never sent, and the client's retry got a 404. At shutdown
/// the same: a parked request answered 503 was still matched, spending the hit and journaling 200.
final class SlowMatchingLaneAbandonedTests: XCTestCase {
    private static let tenant = E2E.tenantHeader("t")
    /// The `limit: 1` mock's url: `/x` with a query of 1,600 b's, so that its request, at
    /// least half as long as the slow subject the expression is marked on, goes to the lane
    /// at once (a far shorter one is tried on a worker first: docs/tenancy.md#slow-regular-expressions).
    private static let x = "/x?pad=" + String(repeating: "b", count: 1_600)

    /// Adds the two mocks, then sends one slow request and waits for its 404: the lane's search
    /// of that 3,002-unit subject, with the whole budget, marks the expression slow (a worker's
    /// slice cannot for so long a subject), so that the requests that follow go to the lane at
    /// once, whatever the timing.
    private static func addMocks(_ client: RawHTTPClient) throws {
        try E2E.addMock(client, tenant: "t", url: "(a|aa)+$", kind: "regexp", body: "never")
        try E2E.addMock(client, tenant: "t", url: Self.x, body: "x", limit: 1)
        XCTAssertEqual(try client.request("GET", SlowMatchingLaneTests.slowTarget, headers: Self.tenant).status, 404)
    }

    /// The `/x` entries of tenant `t`'s journal: their statuses.
    private static func statusesOfX(_ client: RawHTTPClient) throws -> [Int] {
        try E2E.journal(client, tenant: "t").filter { $0["url"] as? String == Self.x }
            .compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
    }

    func testAClientThatHungUpWhileQueuedOnTheLaneSpendsNoLimit() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            try Self.addMocks(client)
            let slow = SlowMatchingLaneTests.inFlight(31, port: server.port) { client in
                try client.request("GET", SlowMatchingLaneTests.slowTarget, headers: Self.tenant)
            }
            usleep(300_000)
            let leaving = try RawHTTPClient(port: server.port, timeoutSeconds: 1)
            XCTAssertThrowsError(try leaving.request("GET", Self.x, headers: Self.tenant), "queued behind 31 slow requests: no answer within 1 s")
            leaving.hangUp()
            let answers = slow.wait()
            XCTAssertEqual(answers.filter { $0.status == 404 }.count, 31, "the slow requests were all matched on the lane")

            // The lane reached /x's job after its client left: a 499 is journaled, nothing else.
            var statuses = try Self.statusesOfX(client)
            let deadline = ContinuousClock.now + .seconds(10)
            while statuses.isEmpty, ContinuousClock.now < deadline {
                usleep(50_000)
                statuses = try Self.statusesOfX(client)
            }
            XCTAssertEqual(statuses, [499], "journaled as the client having gone, not as a 200 never sent")
            let entry = try E2E.journal(client, tenant: "t").first { $0["url"] as? String == Self.x }
            XCTAssertTrue((entry?["problem"] as? String ?? "").contains("closed the connection"), "\(entry ?? [:])")
            XCTAssertGreaterThanOrEqual(JSONNumber.double(entry?["durationMs"]) ?? 0, 1000, "the time it waited: \(entry ?? [:])")
            let metrics = try E2E.metrics(client)
            XCTAssertEqual(metrics[#"catbird_requests_unanswered_total{reason="client_left"}"#], 1, "counted as gone")
            XCTAssertEqual(metrics[#"catbird_requests_total{answered_by="mock",status_class="2xx"}"#] ?? 0, 0, "no 200 counted")

            let retry = try RawHTTPClient(port: server.port).request("GET", Self.x, headers: Self.tenant)
            XCTAssertEqual(retry.status, 200, "the limit was not spent: \(retry.text)")
            XCTAssertEqual(retry.text, "x")
        }
    }

    func testRequestsParkedForTheLaneWhenTheServerStopsSpendNoLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-lane-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["--db", directory.appendingPathComponent("db.sqlite").path, "--log-level", "warning"]
        let server = try LaunchedServer(["--port", "\(try FreePort.next())"] + arguments, in: directory)
        try Self.addMocks(try server.client())

        let slow = SlowMatchingLaneTests.inFlight(2, port: server.port) { client in
            try client.request("GET", SlowMatchingLaneTests.slowTarget, headers: Self.tenant)
        }
        usleep(100_000)
        let x = SlowMatchingLaneTests.inFlight(1, port: server.port) { client in
            try client.request("GET", Self.x, headers: Self.tenant)
        }
        usleep(50_000)
        // A request still being read keeps the stopping server in its first second: time in
        // which the lane would take the parked requests' jobs.
        let unfinished = try RawHTTPClient(port: server.port)
        try unfinished.send(raw: Array("POST /y HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nabc".utf8))
        let stopped = try server.terminate()
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertEqual(x.wait().map(\.status), [503], "parked for the lane when the server stopped")
        _ = slow.wait()

        let restarted = try LaunchedServer(["--port", "\(try FreePort.next())"] + arguments, in: directory)
        defer { _ = try? restarted.terminate() }
        let client = try restarted.client()
        // Journaled as the 503 that went out, never as a 200 that was not sent (tester finding
        // tester55a-F2: such requests were in no journal at all).
        XCTAssertEqual(try Self.statusesOfX(client), [503], "the stop's 503, and no 200 that was never sent")
        let retry = try client.request("GET", Self.x, headers: Self.tenant)
        XCTAssertEqual(retry.status, 200, "the limit was not spent: \(retry.text)")
        XCTAssertEqual(retry.text, "x")
    }
}
