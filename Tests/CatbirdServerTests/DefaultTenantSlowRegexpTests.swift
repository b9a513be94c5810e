import CatbirdTestSupport
import Foundation
import XCTest

/// A default-tenant mock whose regular expression is slow is charged to the default tenant, not
/// to the shards that fall back to its mocks (docs/tenancy.md#slow-regular-expressions).
///
/// Tester finding try9b F7 (exact shape, scaled): one default mock `GET regexp` with a
/// catastrophic expression sent every shard's unmatched request to the 2-thread matching lane
/// (404s from ~4,800/s to ~11/s), and 45 concurrent unmatched requests of `shard-1`, whose only
/// mock is a plain `equal`, got 32 × 404 and 13 × 429 blaming the shard's own (non-existent)
/// regular expressions. Now an expression found slow on a worker is not started for another
/// tenant's request: the mock counts as not matching, the 404 names it, and the request never
/// waits on the lane for it.
final class DefaultTenantSlowRegexpTests: XCTestCase {
    static let skippedWording = #"(GET regexp "(a+)+$") of tenant "" was skipped: its regular expression was found slow on a worker"#

    func testShardsUnmatchedRequestsSkipTheDefaultTenantsSlowExpressionInsteadOfQueueingOnTheLane() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            try E2E.addMock(client, url: "/fixture", body: "fixture")
            try E2E.addMock(client, url: "(a+)+$", kind: "regexp", body: "never")
            // After the slow one: a shard's request still reaches it.
            try E2E.addMock(client, url: "^/a+!$", kind: "regexp", headerPatterns: ["X-After": ("equal", "1")], body: "after")
            try E2E.addMock(client, tenant: "shard-1", url: "/own", body: "own")

            let answers = SlowMatchingLaneTests.inFlight(45, port: server.port) { client in
                try client.request("GET", SlowMatchingLaneTests.slowTarget, headers: E2E.tenantHeader("shard-1"))
            }.wait()
            let refused = answers.filter { $0.status == 429 }
            XCTAssertEqual(refused.count, 0, "45 unmatched requests of a shard without regular expressions: \(refused.first?.text ?? "")")
            for answer in answers { XCTAssertEqual(answer.status, 404, answer.text) }
            let skipped = answers.filter { ($0.object["reason"] as? String)?.contains(Self.skippedWording) == true }
            let onLane = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? -1
            // A request whose search started too late to mark the expression may still go to the
            // lane once (the mark needs 0.5 ms of its own search); with the default tenant's cost
            // charged to the request, all 45 went (32 admitted, 13 refused).
            XCTAssertLessThan(onLane, 8, "requests of shard-1 matched on the lane for the default tenant's expression")
            XCTAssertEqual(skipped.count, answers.count, "every 404 names the default mock skipped: \(answers.first?.text ?? "")")

            // Now marked: every shard's unmatched request is answered on a worker, none on the lane.
            for shard in 0..<5 {
                for _ in 0..<10 {
                    let answer = try client.request("GET", SlowMatchingLaneTests.slowTarget, headers: E2E.tenantHeader("s\(shard)"))
                    E2E.assertError(answer, status: 404, reasonContains: Self.skippedWording)
                }
            }
            XCTAssertEqual(try E2E.metrics(client)["catbird_slow_matching_requests_total"], onLane, "no shard request went to the lane")
            let after = try client.request(
                "GET", SlowMatchingLaneTests.slowTarget, headers: E2E.tenantHeader("s0") + [("X-After", "1")])
            XCTAssertEqual(after.status, 200, after.text)
            XCTAssertEqual(after.text, "after", "the default mock after the skipped one still answers")
            XCTAssertEqual(try client.request("GET", "/fixture", headers: E2E.tenantHeader("s1")).text, "fixture")
            XCTAssertEqual(try client.request("GET", "/own", headers: E2E.tenantHeader("shard-1")).text, "own")

            // The default tenant's own request still gives its expression the whole budget.
            let own = try client.request("GET", SlowMatchingLaneTests.slowTarget)
            E2E.assertError(own, status: 404, reasonContains: "(GET regexp \"(a+)+$\") of tenant \"\" was skipped: its regular expression ran out of the 100 ms evaluation budget")
        }
    }
}
