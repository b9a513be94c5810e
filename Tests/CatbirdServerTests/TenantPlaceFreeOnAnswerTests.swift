import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// A tenant's place on the SQL pool or a lane is free before its answer goes out
/// (``HTTPWorkPool/run(_:holding:_:then:)`` gives it back between the work and the delivery):
/// a client that sends its next requests the instant it has read its answers, with all of its
/// places in use, is never refused. While a route let go by hand after the answer, two SQL
/// queries sent at once right after both answers could get a 429 "already has 2 SQL queries".
/// The server's order makes these tests pass every time; the old order fails them only when the
/// pool's thread loses the race to the client, so they repeat the pattern many times (with the
/// place given back after the answer, each failed in 15 runs of 15 on a 2-core machine: 2-20 of
/// the 400 queries and 24-83 of the 800 uploads refused).
final class TenantPlaceFreeOnAnswerTests: ServerTestCase {
    /// Tenant `p` fills both of its SQL places (``TenantSQL/perTenantLimit``) on two keep-alive
    /// connections, reads both answers and sends both queries again at once, 200 times.
    func testTwoQueriesSentAsSoonAsBothAnsweredAreBothRun() throws {
        // Other tenants keep the pool's threads and the cores busy meanwhile, so that the
        // thread that answered is more often descheduled right after its answer.
        let stop = Atomic<Bool>(false)
        let others = SlowMatchingLaneTests.inFlight(4, port: server.port) { client in
            let tenant = "o\(UInt32.random(in: 0..<1_000_000))"
            var last: RawResponse?
            while !stop.load(ordering: .relaxed) { last = try E2E.sql(client, "SELECT count(*) FROM requests", tenant: tenant) }
            return try XCTUnwrap(last)
        }
        defer {
            stop.store(true, ordering: .relaxed)
            _ = others.wait()
        }
        let connections = [client!, try server.client()]
        let query = Array(E2E.jsonText(["sql": "SELECT 1"]).utf8)
        let headers = [("Content-Type", "application/json")] + E2E.tenantHeader("p")
        var refused: [String] = []
        for round in 0..<200 {
            for connection in connections { try connection.send("POST", "/catbird/api/sql", headers: headers, body: query) }
            for connection in connections {
                let answer = try connection.readResponse()
                if answer.status != 200 { refused.append("round \(round): \(answer.status) \(answer.text)") }
            }
        }
        XCTAssertEqual(refused.count, 0, "\(refused.count) of 400 queries were not run; first: \(refused.first ?? "")")
    }

    /// Tenant `b` keeps all 32 of its body-lane places (``MatchingLane/admittedPerTenant``) in
    /// use: 32 keep-alive connections each send a 70,000-byte upload that a `jsonPath` body
    /// pattern must read (the body lane: over the 64 KiB a worker reads), and the next one as
    /// soon as the answer is read, 25 times each.
    func testUploadsSentAsSoonAsAnsweredWithEveryBodyLanePlaceTakenAreAllMatched() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks",
            BodyPatternWorkTests.bodyMock(url: "/upload", body: ["kind": "jsonPath", "value": "$.kind", "equalTo": "photo"], answer: "photo"),
            headers: E2E.tenantHeader("b"))
        XCTAssertEqual(added.status, 201, added.text)
        let upload = Array(E2E.jsonText(["kind": "photo", "data": String(repeating: "x", count: 70_000)]).utf8)
        let places = 32
        let start = DispatchSemaphore(value: 0)
        let refused = Mutex<[String]>([])
        let uploading = SlowMatchingLaneTests.inFlight(places, port: server.port) { client in
            start.wait()
            var last: RawResponse?
            for _ in 0..<25 {
                let answer = try client.request("POST", "/upload", headers: E2E.tenantHeader("b"), body: upload)
                if answer.status != 200 || answer.text != "photo" {
                    refused.withLock { $0.append("\(answer.status) \(answer.text.prefix(300))") }
                }
                last = answer
            }
            return try XCTUnwrap(last)
        }
        for _ in 0..<places { start.signal() }
        XCTAssertEqual(uploading.wait().count, places, "\(uploading.failures.withLock { $0 })")
        let refusals = refused.withLock { $0 }
        XCTAssertEqual(refusals.count, 0, "\(refusals.count) of \(places * 25) uploads were not matched; first: \(refusals.first ?? "")")
        XCTAssertEqual(try E2E.metrics(client)["catbird_body_lane_requests_total"], Double(places * 25), "each was matched on the body lane")
    }
}
