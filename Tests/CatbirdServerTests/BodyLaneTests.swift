import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// Requests whose body over 64 KiB a body pattern must read are matched on the body lane, apart
/// from other tenants' slow regular expressions (docs/tenancy.md#large-bodies).
///
/// Tester finding try9b F10 (exact shape, scaled down): tenant `victim` has `POST equal /upload`
/// with body `jsonPath $.kind equalTo "photo"` and loops a 100 KB JSON upload; tenants syb0…
/// sybN-1 each add `GET regexp (.*.*)*#` and each runs one client looping `GET /aaaa…` (each
/// request 100 ms on the matching lane, then a 404). With one lane, fair per tenant, the upload
/// waited for one running match per tenant: 40 tenants 0.8-4 s, 80 tenants up to 8.5 s.
final class BodyLaneTests: XCTestCase {
    func testAnUploadDoesNotWaitBehindOtherTenantsSlowExpressions() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let added = try client.json(
                "POST", "/catbird/api/mocks",
                BodyPatternWorkTests.bodyMock(url: "/upload", body: ["kind": "jsonPath", "value": "$.kind", "equalTo": "photo"], answer: "photo"),
                headers: E2E.tenantHeader("victim"))
            XCTAssertEqual(added.status, 201, added.text)
            let sybils = 16
            for n in 0..<sybils { try E2E.addMock(client, tenant: "syb\(n)", url: "(.*.*)*#", kind: "regexp", body: "never") }

            // Each sybil loops its request until told to stop, timing those after the warm-up.
            let loop = SybilLoop()
            let looping = SlowMatchingLaneTests.inFlight(sybils, port: server.port) { client in
                let tenant = E2E.tenantHeader("syb\(loop.next.add(1, ordering: .relaxed).oldValue)")
                var answer: RawResponse
                repeat {
                    let started = ContinuousClock.now
                    answer = try client.request("GET", "/" + String(repeating: "a", count: 100), headers: tenant)
                    if loop.warmedUp.load(ordering: .relaxed) { loop.times.withLock { $0.append(ContinuousClock.now - started) } }
                } while !loop.stop.load(ordering: .relaxed)
                return answer
            }
            // Their mark set and the matching lane's turns full.
            usleep(1_500_000)
            loop.warmedUp.store(true, ordering: .relaxed)

            let upload = Array(E2E.jsonText(["kind": "photo", "data": String(repeating: "x", count: 100_000)]).utf8)
            var uploadTimes: [Duration] = []
            for _ in 0..<6 {
                let started = ContinuousClock.now
                let answer = try RawHTTPClient(port: server.port, timeoutSeconds: 30).request(
                    "POST", "/upload", headers: E2E.tenantHeader("victim"), body: upload)
                uploadTimes.append(ContinuousClock.now - started)
                XCTAssertEqual(answer.status, 200, String(answer.text.prefix(500)))
                XCTAssertEqual(answer.text, "photo")
            }
            loop.stop.store(true, ordering: .relaxed)
            for answer in looping.wait() { E2E.assertError(answer, status: 404, reasonContains: "ran out of the 100 ms evaluation budget") }

            let samples = try E2E.metrics(client)
            XCTAssertEqual(samples["catbird_body_lane_requests_total"], 6, "each upload was matched on the body lane")
            let sybilMedian = Self.median(loop.times.withLock { $0 })
            let uploadMedian = Self.median(uploadTimes)
            // Before, an upload waited for a round of the sybils' turns, as long as a sybil's own
            // request (16 tenants x 100 ms / 2 threads); both lanes' threads are at nice 10, so
            // a loaded machine slows both alike.
            XCTAssertLessThan(
                uploadMedian, sybilMedian / 2,
                "uploads \(uploadTimes) beside \(sybils) tenants' slow requests (median \(sybilMedian))")
        }
    }

    /// The sybils' shared state: who is next, whether to time, whether to stop, the times.
    final class SybilLoop: Sendable {
        let next = Atomic<Int>(0)
        let warmedUp = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        let times = Mutex<[Duration]>([])
    }

    /// The middle of `times` (the upper one of an even count); zero for none.
    static func median(_ times: [Duration]) -> Duration {
        times.isEmpty ? .zero : times.sorted()[times.count / 2]
    }
}
