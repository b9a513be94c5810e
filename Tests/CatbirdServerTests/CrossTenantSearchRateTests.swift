import CatbirdTestSupport
import Foundation
import XCTest

/// The searches of other tenants' mocks for default-tenant misses take at most 50 ms of the
/// server's time a second in all (docs/matching.md#near-misses).
///
/// Regression (tester finding tester30b-F2): each search stops after 2 ms, but nothing bounded
/// how many ran, and near a fleet's mocks no such 404 was memoized (its answer depends on
/// timing): a client without a parallel id polling an unmocked URL on 4 connections cut every
/// other tenant from about 25,000 requests a second to 200–350. Here three shards each hold a
/// long wildcard (tester30b-F4's), so that each search runs its whole 2 ms: past about 25 of
/// them in a second, a miss is answered without the search, and says so.
final class CrossTenantSearchRateTests: XCTestCase {
    func testDefaultTenantMissesStopSearchingOtherTenantsOnceASecondsAllowanceIsSpent() throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            for shard in 0..<3 {
                try E2E.addMock(
                    client, tenant: "shard-\(shard)", url: "*" + String(repeating: "a", count: 3_999) + "b*", kind: "wildcard", body: "S")
            }
            let target = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)
            let clause = "other tenants' mocks were not searched for one that matches it (these searches, for requests without a "
                + "parallel id, may take 50 ms of the server's time each second, and had taken it this second)"
            var reasons: [String] = []
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline, !(reasons.last ?? "").contains(clause) {
                let answer = try client.request("GET", target)
                XCTAssertEqual(answer.status, 404, answer.text)
                reasons.append(answer.object["reason"] as? String ?? "")
            }
            XCTAssertTrue(reasons.last?.contains(clause) == true, "\(reasons.count) misses, the last: \(reasons.last ?? "")")
            XCTAssertGreaterThan(reasons.count, 1, "the first miss searched")
            XCTAssertFalse(reasons.first?.contains(clause) ?? true, reasons.first ?? "")
        }
    }
}
