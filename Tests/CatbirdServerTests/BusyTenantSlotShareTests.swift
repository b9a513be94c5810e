import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// A tenant whose keep-alive connections hold more than its share of the connection slots
/// (1/8), each busy with a request now and then and never idle a second, gives up the surplus
/// when clients wait: its connections close after their next answer (`Connection: close`), so
/// the health check and other tenants get in while its load runs (docs/operations.md,
/// Connections and memory).
final class BusyTenantSlotShareTests: XCTestCase {
    /// 64 connection slots: a tenant's share is 8.
    private static let connectionLimit = 64

    /// A pool of `connections` keep-alive clients of `tenant`, each sending `GET target` and
    /// pausing `pause` seconds after each answer, reconnecting when the server closes its
    /// connection, until `stop`; counts the answers and the `Connection: close` ones.
    private final class Pool: Sendable {
        let stop = Atomic<Bool>(false)
        let answers = Atomic<Int>(0)
        let closing = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()

        init(port: UInt16, tenant: String, target: String, connections: Int, pause: Double) {
            for _ in 0..<connections {
                done.enter()
                Thread.detachNewThread { [self] in
                    defer { done.leave() }
                    var client: RawHTTPClient?
                    while !stop.load(ordering: .relaxed) {
                        do {
                            let open = try client ?? RawHTTPClient(port: port, timeoutSeconds: 30)
                            client = open
                            let answer = try open.request("GET", target, headers: [("X-Catbird-Parallel-Id", tenant)])
                            XCTAssertEqual(answer.status, 200, answer.text)
                            answers.add(1, ordering: .relaxed)
                            if answer.header("Connection")?.lowercased() == "close" {
                                closing.add(1, ordering: .relaxed)
                                client = nil
                            }
                        } catch {
                            failures.add(1, ordering: .relaxed)
                            client = nil
                        }
                        Thread.sleep(forTimeInterval: pause)
                    }
                }
            }
        }

        func finish() {
            stop.store(true, ordering: .relaxed)
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        }
    }

    /// Regression (tester finding tester67b-F1, scaled to 64 slots): tenant A's 70 keep-alive
    /// connections, each sending `GET /a` every 0.3 s, were never idle for a second, so none was
    /// closed for room: `GET /catbird/api/health` and tenant B's new connection waited in the
    /// backlog as long as the load ran (there, 15 s), and the one connection closed was B's own
    /// keep-alive connection, idle for a few seconds between two steps. Now A's surplus closes
    /// after its next answers: health and B answer within seconds while A's load runs, B's
    /// keep-alive connection is kept, and none of A's requests goes unanswered.
    func testATenantsBusyPoolPastItsShareLeavesHealthAndOtherTenantsIn() throws {
        let server = try TestServer { $0.connectionLimit = Self.connectionLimit }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "A", url: "/a", body: "hello-A")
        try E2E.addMock(control, tenant: "B", url: "/b", body: "ok")
        let kept = try RawHTTPClient(port: server.port, timeoutSeconds: 15)
        XCTAssertEqual(try kept.request("GET", "/b", headers: [("X-Catbird-Parallel-Id", "B")]).text, "ok")

        let pool = Pool(port: server.port, tenant: "A", target: "/a", connections: 70, pause: 0.3)
        usleep(2_000_000)
        let began = ContinuousClock.now
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 15).request("GET", "/catbird/api/health")
        let healthTook = ContinuousClock.now - began
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 15).request(
            "GET", "/b", headers: [("X-Catbird-Parallel-Id", "B")])
        let otherTook = ContinuousClock.now - began
        let again = try kept.request("GET", "/b", headers: [("X-Catbird-Parallel-Id", "B")])
        let loadRan = pool.answers.load(ordering: .relaxed)
        pool.finish()

        XCTAssertEqual(health.status, 200, health.text)
        XCTAssertEqual(other.text, "ok")
        XCTAssertLessThan(healthTook, .seconds(4), "the health check got in while A's load ran")
        XCTAssertLessThan(otherTook, .seconds(5), "tenant B got in while A's load ran")
        XCTAssertEqual(again.text, "ok", "B's keep-alive connection within its share was kept")
        XCTAssertGreaterThan(loadRan, 100, "A's load ran meanwhile")
        XCTAssertGreaterThan(pool.closing.load(ordering: .relaxed), 0, "A's surplus was told to close with an answer")
        XCTAssertEqual(pool.failures.load(ordering: .relaxed), 0, "no request of A's was cut off")
        let metrics = try E2E.metrics(server.client())
        XCTAssertGreaterThan(metrics[#"catbird_connections_closed_total{reason="keep_alive_over_share"}"#] ?? 0, 0, "\(metrics)")
    }
}
