import CatbirdTestSupport
import Foundation
import XCTest

/// The search of other tenants' mocks for a default-tenant 404's `matchingTenants` stops after
/// 2 ms of the worker's CPU time (docs/matching.md#near-misses).
///
/// Regression (try6b finding 7): a request without a parallel id whose URL is not ASCII tries
/// every wildcard and regexp mock of each other tenant (docs/matching.md#how-matching-scales);
/// with 200 tenants of 50 regexp mocks each, every such miss held a libmicrohttpd worker for
/// ~56 ms (the whole 50-ms near-miss limit), and four connections sending them cut another
/// tenant's plain hits 33×.
final class MatchingTenantsBudgetTests: XCTestCase {
    func testANonASCIIMissStopsSearchingOtherTenantsAndSaysSo() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        // Sorts first, so it is searched within the budget: its mock matches /zzé/…
        try E2E.addMock(control, tenant: "a-match", url: "^/zz", kind: "regexp", body: "a")
        // 40 tenants × 75 ordinary regexp mocks, all tried for a URL that is not ASCII: about
        // 7 ms of searching on this machine, well past the 2 ms limit (with 25 a tenant, 2.3 ms
        // here, the whole search fitted the limit on a faster run: CI of 2026-12-02).
        for tenant in 0..<40 {
            for mock in 0..<75 {
                try E2E.addMock(
                    control, tenant: String(format: "mt%03d", tenant), url: #"^/svc\#(tenant)/item/[0-9]+/detail\#(mock)(\?.*)?$"#,
                    kind: "regexp", body: "x")
            }
        }
        let matched = try control.request("GET", "/zzé/1")
        XCTAssertEqual(matched.status, 404, matched.text)
        XCTAssertEqual(matched.object["matchingTenants"] as? [String], ["a-match"], matched.text)

        let started = ContinuousClock.now
        let missed = try control.request("GET", "/qqé/1")
        let took = ContinuousClock.now - started
        XCTAssertEqual(missed.status, 404, missed.text)
        XCTAssertNil(missed.object["matchingTenants"], missed.text)
        let reason = missed.object["reason"] as? String ?? ""
        XCTAssertTrue(
            reason.hasSuffix("; other tenants' mocks were not searched fully for one that matches it (the search stops after 2 ms)"),
            reason)
        // An ASCII miss is looked up through the tenants' indexes: all 41 searched, nothing said.
        let ascii = try control.request("GET", "/qq/1")
        XCTAssertEqual(ascii.status, 404, ascii.text)
        XCTAssertFalse((ascii.object["reason"] as? String ?? "").contains("not searched fully"), ascii.text)
        print("non-ASCII default-tenant miss over 3,000 other tenants' regexp mocks: \(took)")
    }
}
