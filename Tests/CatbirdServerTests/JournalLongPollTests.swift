import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// `GET /catbird/api/requests?since=&wait=` (docs/protocol.md#journal): held until an entry
/// after `since` matches the filters, or an empty page after `wait` seconds; no thread held.
final class JournalLongPollTests: XCTestCase {
    /// Runs `GET target` for `tenant` on another thread; `wait()` gives the response and how
    /// long it took.
    private final class PendingPoll: @unchecked Sendable {
        // @unchecked Sendable: `result` is written once by the thread before `done` is signalled
        // and read only after waiting on `done`.
        private var result: (RawResponse?, Duration) = (nil, .zero)
        private let done = DispatchSemaphore(value: 0)

        init(port: UInt16, tenant: String?, target: String, method: String = "GET", body: String? = nil) {
            Thread { [self] in
                let started = ContinuousClock.now
                let response = try? RawHTTPClient(port: port).request(
                    method, target, headers: E2E.tenantHeader(tenant) + (body == nil ? [] : [("Content-Type", "application/json")]),
                    body: Array((body ?? "").utf8))
                result = (response, ContinuousClock.now - started)
                done.signal()
            }.start()
        }

        func wait(seconds: Int = 30) -> (RawResponse?, Duration) {
            guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return (nil, .seconds(seconds)) }
            return result
        }
    }

    private func latestID(_ client: RawHTTPClient, tenant: String?) throws -> Int {
        JSONNumber.int(try E2E.journalPage(client, tenant: tenant, query: "order=newest&limit=1")["nextSince"]) ?? -1
    }

    func testAnswersAsSoonAsAMatchingEntryArrives() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/before", headers: E2E.tenantHeader("a"))
        let since = try latestID(client, tenant: "a")
        XCTAssertGreaterThan(since, 0)

        let poll = PendingPoll(port: server.port, tenant: "a", target: "/catbird/api/requests?since=\(since)&wait=30&url=/wanted")
        usleep(300_000)
        _ = try client.request("GET", "/other", headers: E2E.tenantHeader("a"))  // does not match the filter
        _ = try client.request("GET", "/wanted", headers: E2E.tenantHeader("b"))  // another tenant
        usleep(300_000)
        let sent = ContinuousClock.now
        _ = try client.request("GET", "/wanted?x=1", headers: E2E.tenantHeader("a"))
        let (response, elapsed) = poll.wait()
        let answered = ContinuousClock.now
        XCTAssertEqual(response?.status, 200)
        let urls = (response?.object["requests"] as? [[String: Any]] ?? []).map { $0["url"] as? String }
        XCTAssertEqual(urls, ["/wanted?x=1"])
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(500), "held until the matching entry (sent 600 ms after the poll; the poll's clock starts a little later)")
        XCTAssertLessThan(answered - sent, .seconds(10), "answered soon after the entry, not at the 30 s wait")
    }

    /// Regression (tester finding tester34b-F3): a tenant's journal cleared, or the tenant
    /// dropped, while the web page's long poll of it was parked, left the poll parked until its
    /// `wait` ran out (25 s), and the page showed the gone entries, bodies included, all that
    /// time. The clear or drop now answers the tenant's parked polls at once (an empty page whose
    /// `oldestId`/`newestId` show the journal changed); another tenant's poll stays parked.
    func testAClearOrDropAnswersTheTenantsParkedPollsAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in ["cleared", "dropped", "other"] {
            try E2E.addMock(client, tenant: tenant, url: "/m", body: "m")
            XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader(tenant)).text, "m")
        }
        var polls: [String: PendingPoll] = [:]
        for tenant in ["cleared", "dropped", "other"] {
            let since = try latestID(client, tenant: tenant)
            // The other tenant's poll waits for a url none of its requests below has: woken by
            // their commits, it must not take the other tenants' clear and drop for its own.
            let filter = tenant == "other" ? "&url=/wanted" : ""
            polls[tenant] = PendingPoll(port: server.port, tenant: tenant, target: "/catbird/api/requests?since=\(since)&wait=20\(filter)")
        }
        usleep(500_000)  // the polls are parked
        let changed = ContinuousClock.now
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("cleared")).status, 200)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/dropped", headers: E2E.tenantHeader("dropped")).status, 204)
        _ = try client.request("GET", "/not-wanted", headers: E2E.tenantHeader("other"))  // wakes the other poll
        for tenant in ["cleared", "dropped"] {
            let (response, _) = try XCTUnwrap(polls[tenant]).wait()
            XCTAssertEqual(response?.status, 200, tenant)
            XCTAssertEqual((response?.object["requests"] as? [Any])?.count, 0, tenant)
            XCTAssertLessThan(ContinuousClock.now - changed, .seconds(5), "\(tenant): answered at the change, not at the 20-s wait")
        }
        let (other, elapsed) = try XCTUnwrap(polls["other"]).wait()
        XCTAssertEqual(other?.status, 200)
        XCTAssertGreaterThanOrEqual(elapsed, .seconds(15), "another tenant's poll is left parked until its own wait ran out")
    }

    /// Tester finding tester45a-F10, its case: a tenant with a mock and no request journaled
    /// yet (a shard between its set-up and its first request); its long poll (`since=0`,
    /// unfiltered or filtered) ran to its whole `wait` after the tenant's drop or a clear of its
    /// journal, whose deletion floor an empty journal does not move. Answered at once now.
    func testAClearOrDropOfAnEmptyJournalAnswersItsPollAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for (tenant, filter, change) in [("empty-drop", "", "drop"), ("empty-clear", "", "clear"), ("empty-filtered", "&url=/x", "drop")] {
            try E2E.addMock(client, tenant: tenant, url: "/m", body: "m")
            let poll = PendingPoll(port: server.port, tenant: tenant, target: "/catbird/api/requests?since=0&wait=20\(filter)")
            usleep(500_000)  // parked
            let changed = ContinuousClock.now
            if change == "drop" {
                XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/\(tenant)", headers: E2E.tenantHeader(tenant)).status, 204)
            } else {
                XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader(tenant)).status, 200)
            }
            let (response, _) = poll.wait()
            XCTAssertEqual(response?.status, 200, tenant)
            XCTAssertLessThan(ContinuousClock.now - changed, .seconds(5), "\(tenant): answered at the \(change), not at the 20-s wait")
        }
    }

    func testAnswersAnEmptyPageWhenTheWaitRunsOut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/x", headers: E2E.tenantHeader("a"))
        let since = try latestID(client, tenant: "a")
        let poll = PendingPoll(port: server.port, tenant: "a", target: "/catbird/api/requests?since=\(since)&wait=1.5")
        _ = try client.request("GET", "/y", headers: E2E.tenantHeader("b"))  // another tenant's entry does not answer it
        let (response, elapsed) = poll.wait()
        XCTAssertEqual(response?.status, 200)
        XCTAssertEqual((response?.object["requests"] as? [Any])?.count, 0)
        XCTAssertEqual(JSONNumber.int(response?.object["nextSince"]), since)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(1500))
        XCTAssertLessThan(elapsed, .seconds(15))
    }

    func testAnEntryAlreadyThereAnswersAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/x")
        let started = ContinuousClock.now
        let page = try E2E.journalPage(client, tenant: nil, query: "since=0&wait=30")
        XCTAssertEqual((page["requests"] as? [Any])?.count, 1)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }

    func testBadWaitValuesAre400() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // T15B-F14: `0x2`, `0x1p1` and `.5e1` were read as seconds (2, 2, 5) and held the answer.
        for value in ["61", "-1", "abc", "nan", "1e9", "", "0x2", "0x1p1", ".5e1", "+1", "1..2", "."] {
            let answer = try client.request("GET", "/catbird/api/requests?since=0&wait=\(value)")
            E2E.assertError(answer, status: 400, reasonContains: "'wait' must be a number of seconds from 0 to 60")
        }
    }

    /// Twenty polls wait at once on a server with one worker thread; mock hits are still served
    /// and each poll is answered by its own tenant's entry.
    func testWaitingPollsHoldNoWorker() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/hit", body: "hit")
        let polls = (0..<20).map { index in
            PendingPoll(port: server.port, tenant: "t\(index)", target: "/catbird/api/requests?since=0&wait=30")
        }
        usleep(300_000)
        for _ in 0..<5 {
            let started = ContinuousClock.now
            XCTAssertEqual(try client.request("GET", "/hit").text, "hit")
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        }
        for index in 0..<20 { _ = try client.request("GET", "/for/\(index)", headers: E2E.tenantHeader("t\(index)")) }
        for (index, poll) in polls.enumerated() {
            let (response, _) = poll.wait()
            let urls = (response?.object["requests"] as? [[String: Any]] ?? []).map { $0["url"] as? String }
            XCTAssertEqual(urls, ["/for/\(index)"])
        }
    }

    func testAPollPendingAtShutdownIsAnsweredAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let poll = PendingPoll(port: server.port, tenant: nil, target: "/catbird/api/requests?since=0&wait=60")
        usleep(300_000)
        let started = ContinuousClock.now
        server.stop()
        let (response, _) = poll.wait()
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
        XCTAssertEqual(response?.status, 503)
    }

    /// Regression: a long poll and a wait parked when the server gets SIGTERM were answered
    /// `503` in plain text; every error is the JSON shape (docs/protocol.md#errors). And the log
    /// said `→ 500 control` for the poll (its dropped responder's status) while the client got
    /// the 503: the log line shows what was sent.
    func testPollAndWaitParkedAtSIGTERMGetTheJSONError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-sigterm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db.sqlite").path, "--log-level", "info"],
            in: directory)
        defer { _ = try? server.terminate() }
        let poll = PendingPoll(port: server.port, tenant: nil, target: "/catbird/api/requests?since=99999&wait=60")
        let wait = PendingPoll(
            port: server.port, tenant: nil, target: "/catbird/api/requests/wait", method: "POST",
            body: #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/never"}},"timeout":50}"#)
        usleep(500_000)
        let exit = try server.terminate()
        XCTAssertEqual(exit.status, 0, exit.stderr)
        for (name, pending) in [("poll", poll), ("wait", wait)] {
            let (response, _) = pending.wait()
            let answer = try XCTUnwrap(response, "\(name) got no answer")
            E2E.assertError(answer, status: 503, reasonContains: "the server is stopping")
        }
        XCTAssertTrue(exit.stderr.contains("GET /catbird/api/requests?since=99999&wait=60 → 503 control"), exit.stderr)
        XCTAssertTrue(exit.stderr.contains("POST /catbird/api/requests/wait → 503 control"), exit.stderr)
        XCTAssertFalse(exit.stderr.contains("→ 500"), exit.stderr)
    }
}
