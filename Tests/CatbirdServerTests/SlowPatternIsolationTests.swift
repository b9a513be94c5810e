import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// A slow pattern delays only the request that meets it: while tenant A's requests run into a
/// catastrophic regexp mock (each stopped by the 100 ms evaluation budget,
/// docs/matching.md#evaluation-budget), tenant B's mock hits on other connections wait for no
/// lock, whether the slow mock is A's own or the default tenant's that both fall back to.
///
/// Load-proof by a reference from the same test: B's hits are timed twice while A's slow
/// requests keep the CPU just as busy, once with A on a second server (no lock can be shared, so
/// what B sees is the machine's load) and once with A on B's server. Only a wait for A's
/// evaluations (about 50-100 ms a hit) makes the second median much larger than the first.
final class SlowPatternIsolationTests: XCTestCase {
    private static let catastrophicTarget = "/" + String(repeating: "a", count: 40) + "!"
    /// B's hits timed per run (a count, not a time, so a slow machine gives as many).
    private static let hitsPerRun = 40

    func testASlowRegexpInOneTenantDoesNotDelayAnotherTenantsHits() throws {
        try assertTenantBUndelayed { control in
            try E2E.addMock(control, tenant: "a", url: "^/(a+)+$", kind: "regexp", body: "never")
            try E2E.addMock(control, tenant: "b", url: "/b", body: "b")
        }
    }

    /// B falls back to the default tenant's mocks while A, the default tenant itself (no
    /// parallel id), meets its slow regexp with the whole budget (another tenant's request
    /// gives a default-tenant expression found slow at most 1 ms: try9b F7), B's answered by
    /// a later default-tenant mock. Matching runs outside the table's lock, so B does not
    /// queue behind A's evaluations (with the lock held while matching, B waited for them:
    /// about 100 ms per request).
    func testASlowDefaultTenantRegexpDoesNotQueueOtherTenantsFallingBackToIt() throws {
        try assertTenantBUndelayed(slowTenant: nil) { control in
            try E2E.addMock(control, url: "^/(a+)+$", kind: "regexp", body: "never")
            try E2E.addMock(control, url: "/b", body: "b")
        }
    }

    /// Two servers with the mocks `addMocks` adds; B's median latency with A's slow requests on
    /// B's server is compared with the same run while they go to the other server.
    private func assertTenantBUndelayed(
        slowTenant: String? = "a", addMocks: (RawHTTPClient) throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let server = try TestServer { $0.threadCount = 4 }
        defer { server.removeFiles() }
        let other = try TestServer { $0.threadCount = 4 }
        defer { other.removeFiles() }
        try addMocks(try server.client())
        try addMocks(try other.client())

        let reference = try measureTenantB(port: server.port, slowPort: other.port, slowTenant: slowTenant, file: file, line: line)
        let shared = try measureTenantB(port: server.port, slowPort: server.port, slowTenant: slowTenant, file: file, line: line)
        // Measured idle: both medians under 1 ms; with one lock for all tenants (before per-tenant
        // locks) B's median was 1.07 s, with the default tenant's lock held while matching 50-100 ms.
        let bound = reference.median * 2 + .milliseconds(25)
        XCTAssertLessThan(
            shared.median, bound,
            "B's median hit \(shared.median) beside A's slow requests on its server; \(reference.median) with them on another server",
            file: file, line: line)
        print("tenant B's median hit: \(shared.median) beside A on its server, \(reference.median) beside A on another (bound \(bound)); A's slowest \(shared.slowest)")
    }

    /// Sends tenant A's slow requests to `slowPort` on two connections, over and over, while
    /// tenant B sends ``hitsPerRun`` `GET /b` to `port`, one at a time on new connections;
    /// returns B's median latency and A's slowest request.
    private func measureTenantB(
        port: UInt16, slowPort: UInt16, slowTenant: String?, file: StaticString, line: UInt
    ) throws -> (median: Duration, slowest: Duration) {
        let stop = Atomic<Bool>(false)
        let slowRunning = Atomic<Int>(2)
        let slowStarted = Atomic<Int>(0)
        let slowTimes = Mutex<[Duration]>([])
        // What went wrong on A's side: a request that failed, or an answer other than the 404
        // that names the exhausted budget, would leave B measured beside no slow work at all.
        let slowFailures = Mutex<[String]>([])
        let slowThreads = (0..<2).map { _ in
            Thread {
                defer { slowRunning.subtract(1, ordering: .releasing) }
                do {
                    let client = try RawHTTPClient(port: slowPort)
                    while !stop.load(ordering: .acquiring) {
                        let started = ContinuousClock.now
                        slowStarted.add(1, ordering: .relaxed)
                        let answer = try client.request("GET", Self.catastrophicTarget, headers: E2E.tenantHeader(slowTenant))
                        slowTimes.withLock { $0.append(ContinuousClock.now - started) }
                        if answer.status != 404 || !answer.text.contains("evaluation budget") {
                            slowFailures.withLock { $0.append("A got \(answer.status): \(answer.text.prefix(300))") }
                            return
                        }
                    }
                } catch {
                    slowFailures.withLock { $0.append("A's request failed: \(error)") }
                }
            }
        }
        for thread in slowThreads { thread.start() }
        while slowStarted.load(ordering: .relaxed) < 2, slowRunning.load(ordering: .acquiring) == 2 { usleep(1000) }
        usleep(10_000)

        // Each of B's requests on a new connection: libmicrohttpd gives it to a worker that is
        // free to accept, not to one busy with A's evaluation, so only locks can delay it.
        var latencies: [Duration] = []
        for _ in 0..<Self.hitsPerRun {
            let started = ContinuousClock.now
            let client = try RawHTTPClient(port: port)
            XCTAssertEqual(try client.request("GET", "/b", headers: E2E.tenantHeader("b")).text, "b", file: file, line: line)
            latencies.append(ContinuousClock.now - started)
            usleep(5000)  // B's hits spread over several of A's 100 ms evaluations
        }
        stop.store(true, ordering: .releasing)
        while slowRunning.load(ordering: .acquiring) > 0 { usleep(1000) }
        XCTAssertEqual(slowFailures.withLock { $0 }, [], "tenant A's slow requests", file: file, line: line)
        let slowest = slowTimes.withLock { $0 }.max() ?? .zero
        // At least the budget: the expression cannot finish for this subject, so it runs until stopped.
        XCTAssertGreaterThan(slowest, .milliseconds(90), "tenant A's requests demonstrably took long", file: file, line: line)
        // The median, not the tail (a new connection may still be queued behind A's worker now and then).
        return (latencies.sorted()[latencies.count / 2], slowest)
    }
}
