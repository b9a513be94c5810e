import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// `--tenant-ttl` drops a tenant only when it is idle (docs/operations.md#retention): a request
/// being answered (a mock's `delay` longer than the TTL) or a parked wait holds its tenant, whose
/// idle time counts from the end of that work; a row journaled late counts as activity when it
/// is journaled, not when its request arrived; and a row journaled after its tenant was dropped
/// with `DELETE /catbird/api/tenants/{id}` re-creates the tenant with the journaling time
/// (docs/tenancy.md, "Dropping a tenant while its requests are in flight").
///
/// Regression (try5 finding 1, `--tenant-ttl 8s` and a `delay: 10` mock; `--tenant-ttl 3s`, a
/// `delay: 6` mock and a wait with `timeout: 8`): the tenant was pruned as idle mid-request, its
/// mocks (an unrelated `/keep` too) deleted; the late answer's row re-created it with
/// `lastActivityAt` = the request's arrival, so the next pass deleted that row 0.6 s after the
/// client had its answer; `DELETE /catbird/api/tenants/rs3` during a delayed request re-created
/// `rs3` with `createdAt` and `lastActivityAt` before the drop. Here the TTL is 2 s (a pass
/// every 100 ms), the delays and the wait 4 s.
final class TenantTTLInFlightTests: XCTestCase {
    private static let ttlSeconds = 2.0

    func testInFlightWorkHoldsATenantAndLateRowsCountWhenJournaled() throws {
        let server = try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: .seconds(Self.ttlSeconds), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in ["ttl2", "waiter", "idle"] { try E2E.addMock(client, tenant: tenant, url: "/keep", body: "kept") }
        try E2E.addMock(client, tenant: "ttl2", url: "/d", body: "DELAYED", delay: 4)
        try E2E.addMock(client, tenant: "rs3", url: "/slow", body: "late", delay: 4)

        let started = Date()
        let delayed = try RawHTTPClient(port: server.port)
        try delayed.send(raw: Array("GET /d HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: ttl2\r\n\r\n".utf8))
        let dropped = try RawHTTPClient(port: server.port)
        try dropped.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: rs3\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 2)  // both matched and parked for their delays
        let waiting = try RawHTTPClient(port: server.port)
        let wait = #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":4}"#
        try waiting.send(raw: Array((
            "POST /catbird/api/requests/wait HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: waiter\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(wait.utf8.count)\r\n\r\n\(wait)").utf8))
        let dropTime = Date()
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/rs3").status, 204)

        XCTAssertEqual(try delayed.readResponse().text, "DELAYED")
        let answeredAt = Date()
        XCTAssertEqual(try dropped.readResponse().text, "late")
        XCTAssertEqual(try waiting.readResponse().status, 408)
        XCTAssertGreaterThan(answeredAt.timeIntervalSince(started), Self.ttlSeconds + 1, "the work outlasted the TTL")

        // A second later (about ten passes): what was in flight is still there.
        usleep(1_000_000)
        let tenants = Dictionary(uniqueKeysWithValues: try E2E.tenants(client).map { ($0["id"] as? String ?? "?", $0) })
        XCTAssertNil(tenants["idle"], "an idle tenant is still dropped: \(tenants.keys.sorted())")
        let ttl2 = try XCTUnwrap(tenants["ttl2"], "held while its request was answered")
        XCTAssertEqual(JSONNumber.int(ttl2["mocks"]), 2, "\(ttl2)")
        XCTAssertEqual(JSONNumber.int(ttl2["requests"]), 1, "\(ttl2)")
        XCTAssertGreaterThanOrEqual(
            try date(ttl2["lastActivityAt"]), answeredAt.addingTimeInterval(-1), "the late row is activity when journaled: \(ttl2)")
        XCTAssertEqual(try E2E.journal(client, tenant: "ttl2").map { $0["url"] as? String }, ["/d"])
        XCTAssertEqual(try client.request("GET", "/keep", headers: E2E.tenantHeader("ttl2")).text, "kept")

        let waiter = try XCTUnwrap(tenants["waiter"], "held while its wait was parked, and a TTL after it ended")
        XCTAssertEqual(JSONNumber.int(waiter["mocks"]), 1, "\(waiter)")

        let recreated = try XCTUnwrap(tenants["rs3"], "the late answer's row re-creates the dropped tenant")
        XCTAssertEqual(JSONNumber.int(recreated["mocks"]), 0, "\(recreated)")
        XCTAssertEqual(JSONNumber.int(recreated["requests"]), 1, "\(recreated)")
        for field in ["createdAt", "lastActivityAt"] {
            XCTAssertGreaterThanOrEqual(try date(recreated[field]), dropTime, "\(field) is the journaling time, after the drop: \(recreated)")
        }
    }

    /// Tester finding T14B-F7: with `--tenant-ttl 3s`, four tenants polled once a second for 8 s,
    /// each with one control call; `pollmocks` (`GET /catbird/api/mocks`, answered on a worker)
    /// was dropped as idle while it polled, while the journal, SQL and count pollers (answered
    /// on the control pools) were kept. Every control call of a tenant is now activity, whichever
    /// thread answers it. Here the TTL is 2 s and the polls run for 4 s, twice a second.
    func testEveryControlCallOfATenantIsActivity() throws {
        let server = try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: .seconds(Self.ttlSeconds), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { server.removeFiles() }
        let client = try server.client()
        let polls: [(tenant: String, method: String, target: String, body: String?)] = [
            ("pollreq", "GET", "/catbird/api/requests", nil),
            ("pollmocks", "GET", "/catbird/api/mocks", nil),
            ("pollsql", "POST", "/catbird/api/sql", #"{"sql":"select 1"}"#),
            ("pollcount", "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{}}}"#),
        ]
        for tenant in polls.map(\.tenant) + ["idle"] { try E2E.addMock(client, tenant: tenant, url: "/keep", body: "kept") }
        let end = Date().addingTimeInterval(Self.ttlSeconds * 2)
        while Date() < end {
            for poll in polls {
                let answer = try poll.body.map { try client.json(poll.method, poll.target, $0, headers: E2E.tenantHeader(poll.tenant)) }
                    ?? client.request(poll.method, poll.target, headers: E2E.tenantHeader(poll.tenant))
                XCTAssertEqual(answer.status, 200, "\(poll.tenant): \(answer.text)")
            }
            usleep(500_000)
        }
        let tenants = try E2E.tenants(client).compactMap { $0["id"] as? String }
        XCTAssertEqual(tenants, ["", "pollcount", "pollmocks", "pollreq", "pollsql"], "every poller kept, the idle tenant dropped")
        XCTAssertEqual(try E2E.mocks(client, tenant: "pollmocks").count, 1, "its mock kept")
    }

    private func date(_ value: Any?) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try XCTUnwrap((value as? String).flatMap(formatter.date(from:)), "\(value ?? "nil")")
    }
}
