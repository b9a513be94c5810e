import CatbirdDomain
import CatbirdTestSupport
import Foundation
import XCTest

/// try7a F12: the first 404 after any change of a large mock table built the table's near-miss
/// catalog (about 10 µs per mock: 0.12 s with 10,000 mocks) on the libmicrohttpd worker that
/// also serves other tenants. A miss whose catalogs would cover more than
/// ``MockStore/nearMissCatalogWorkerLimit`` mocks is now handed to the matching lane
/// (docs/matching.md#near-misses); the metric `catbird_slow_matching_requests_total` counts it.
final class NearMissCatalogLaneTests: XCTestCase {
    private func onLane(_ client: RawHTTPClient) throws -> Double {
        try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
    }

    /// A miss of `tenant` for `url`: a 404 whose closest near miss is `closest`.
    private func assertMiss(_ client: RawHTTPClient, tenant: String?, _ url: String, closest: String, line: UInt = #line) throws {
        let answer = try client.request("GET", url, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 404, answer.text, line: line)
        let first = (answer.object["nearMisses"] as? [[String: Any]])?.first
        let pattern = (first?["pattern"] as? [String: Any])?["url"] as? [String: Any]
        XCTAssertEqual(pattern?["value"] as? String, closest, answer.text, line: line)
    }

    func testTheFirstMissAfterAChangeOfALargeTableIsAnsweredOnTheMatchingLane() throws {
        let limit = MockStore.nearMissCatalogWorkerLimit
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for i in 0..<limit { try E2E.addMock(client, tenant: "big", url: "/bulk/\(i)", body: "ok") }

        // At the limit: built on the worker.
        try assertMiss(client, tenant: "big", "/bulk/7x", closest: "/bulk/7")
        XCTAssertEqual(try onLane(client), 0, "1,000 mocks: on the worker")

        // Two more mocks (a new table version over the limit): the first miss goes to the lane,
        // the next one (same version, catalog built) does not.
        try E2E.addMock(client, tenant: "big", url: "/bulk/\(limit)", body: "ok", limit: 1)
        try E2E.addMock(client, tenant: "big", url: "/bulk/\(limit + 1)", body: "ok")
        try assertMiss(client, tenant: "big", "/bulk/12x", closest: "/bulk/12")
        XCTAssertEqual(try onLane(client), 1, "the first miss after the update")
        try assertMiss(client, tenant: "big", "/bulk/13x", closest: "/bulk/13")
        XCTAssertEqual(try onLane(client), 1, "the catalog of this version is built")

        // A `limit: 1` mock used up is a new version too (the tester's second case; 1,001 mocks left).
        XCTAssertEqual(try client.request("GET", "/bulk/\(limit)", headers: E2E.tenantHeader("big")).status, 200)
        try assertMiss(client, tenant: "big", "/bulk/14x", closest: "/bulk/14")
        XCTAssertEqual(try onLane(client), 2, "the first miss after the limit was used up")

        // A hit never goes there, nor does a miss of a small tenant.
        XCTAssertEqual(try client.request("GET", "/bulk/3", headers: E2E.tenantHeader("big")).text, "ok")
        try E2E.addMock(client, tenant: "small", url: "/small", body: "s")
        try assertMiss(client, tenant: "small", "/smal", closest: "/small")
        XCTAssertEqual(try onLane(client), 2)
    }

    /// What the lane is for: another tenant's hit is not held up while a large table's miss
    /// builds its catalog. On a server with one worker thread, a hit sent a moment after a miss
    /// of a 10,000-mock table comes back before the miss's 404: built on the worker, that
    /// catalog (about 0.12 s in a release build, longer in a debug one) held the only worker,
    /// and the hit waited for it. (Were the miss not read yet when the hit comes, the hit would
    /// simply be first: the order is the claim, not a time.)
    func testAnotherTenantsHitIsAnsweredWhileALargeTablesMissIsWorkedOut() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let client = try server.client()
        let size = 10 * MockStore.nearMissCatalogWorkerLimit
        // Pipelined, 500 updates a round trip (one by one they took 30 s on a loaded machine).
        for start in stride(from: 0, to: size, by: 500) {
            let updates = (start..<min(start + 500, size)).map {
                E2E.control(E2E.updateAction(url: "/bulk/\($0)", body: Array("ok".utf8)), tenant: "big")
            }
            XCTAssertEqual(Set(try E2E.pipeline(client, updates).map(\.status)), [201])
        }
        try E2E.addMock(client, tenant: "other", url: "/hit", body: "hit")

        let clock = ContinuousClock()
        let miss = Locked<(status: Int, ended: ContinuousClock.Instant)?>(nil)
        let missed = DispatchSemaphore(value: 0)
        let port = server.port
        Thread {
            defer { missed.signal() }
            guard let answer = try? RawHTTPClient(port: port).request("GET", "/bulk/12x", headers: E2E.tenantHeader("big")) else { return }
            miss.set((answer.status, clock.now))
        }.start()
        usleep(100_000)  // the miss is read and handed over
        let hit = try client.request("GET", "/hit", headers: E2E.tenantHeader("other"))
        let hitEnded = clock.now
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertEqual(hit.text, "hit")
        missed.wait()
        let answered = try XCTUnwrap(miss.value, "the miss got no answer")
        XCTAssertEqual(answered.status, 404)
        XCTAssertGreaterThan(hitEnded.duration(to: answered.ended), .zero, "the hit came after the miss's 404: it waited for the catalog")
        XCTAssertEqual(try onLane(client), 1, "the miss was matched on the lane")
    }

    /// Shared fixtures: a shard's miss is compared with the default tenant's mocks too, so a
    /// change of a large default table sends the next shard's miss to the lane.
    func testAShardsMissAfterAChangeOfALargeDefaultTableIsAnsweredOnTheMatchingLane() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for i in 0...MockStore.nearMissCatalogWorkerLimit { try E2E.addMock(client, url: "/shared/\(i)", body: "ok") }
        try assertMiss(client, tenant: "shard-a", "/shared/5x", closest: "/shared/5")
        XCTAssertEqual(try onLane(client), 1)
        try assertMiss(client, tenant: "shard-b", "/shared/6x", closest: "/shared/6")
        XCTAssertEqual(try onLane(client), 1, "the default table's catalog is built")
        let journal = try E2E.journal(client, tenant: "shard-a")
        XCTAssertEqual(journal.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }, [404], "journaled once, in its tenant")
    }
}
