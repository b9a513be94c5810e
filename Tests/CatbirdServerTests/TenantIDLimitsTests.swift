@testable import CatbirdDomain
import CatbirdTestSupport
import Foundation
import XCTest

/// One maximum tenant-id length, ids cut in log lines, and drop-by-id taking exactly one path
/// segment (docs/tenancy.md#tenant-of-a-request; found by a new user).
final class TenantIDLimitsTests: ServerTestCase {
    /// Regression: an id above about 8,170 bytes could be created (headers allow 28 KiB) but never
    /// dropped by id (414). Now 1,024 bytes is the most, refused with 400 on any route, and an id
    /// of that length is dropped by id even percent-encoded whole.
    func testAnIDOverTheMaximumIsRefusedAndOneAtItIsDroppedByID() throws {
        let over = String(repeating: "x", count: TenantID.maxLength + 1)
        for (method, target, body) in [("POST", "/catbird/api/mocks", E2E.updateAction(url: "/a", body: Array("a".utf8))), ("GET", "/a", "")] {
            let answer = try client.request(
                method, target, headers: E2E.tenantHeader(over) + [("Content-Type", "application/json")],
                body: body.isEmpty ? nil : Array(body.utf8))
            E2E.assertError(answer, status: 400, reasonContains: "longer than 1024 bytes")
        }
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "not journaled")
        // Regression: these two refusals went out without a log line or a metric, unlike every other answer.
        // The control call's as a control route's answer (tester finding tester50c-F3), the app request's as none.
        let metrics = try E2E.metrics(client)
        XCTAssertEqual(metrics[#"catbird_requests_total{answered_by="none",status_class="4xx"}"#], 1, "the app request's refusal")
        XCTAssertEqual(metrics[#"catbird_requests_total{answered_by="control",status_class="4xx"}"#], 1, "the control call's refusal")

        let longest = String(repeating: "é", count: TenantID.maxLength / 2)  // 1,024 bytes
        try E2E.addMock(client, tenant: longest, url: "/a", body: "a")
        let encoded = longest.utf8.map { String(format: "%%%02X", $0) }.joined()  // 3,072 bytes
        let dropped = try client.request("DELETE", "/catbird/api/tenants/\(encoded)")
        XCTAssertEqual(dropped.status, 204, dropped.text)
        E2E.assertError(
            try client.request("DELETE", "/catbird/api/tenants/\(String(repeating: "y", count: TenantID.maxLength + 1))"),
            status: 400, reasonContains: "at most 1024 bytes")
    }

    /// Regression: `DELETE /catbird/api/tenants/a%2Fb/extra` answered `no tenant "a/b/extra"`:
    /// the unescaped `/` was taken into the id.
    func testDropByIDTakesOneSegment() throws {
        try E2E.addMock(client, tenant: "a/b", url: "/a", body: "a")
        E2E.assertError(try client.request("DELETE", "/catbird/api/tenants/a%2Fb/extra"), status: 400, reasonContains: "one path segment")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/a%2Fb").status, 204)
    }

    /// Regression: a 20,000-character id made a 20,065-character log line; log lines cut it as
    /// reasons do, quoted as reasons quote it.
    func testLogLinesCutALongID() {
        let id = TenantID(String(repeating: "t", count: 1024))
        // Quoted since tester50a-F4: the cut's `…` inside the quotes, the length after them.
        XCTAssertEqual(id.description, "\"" + String(repeating: "t", count: 64) + "…\" (1024 bytes)")
        XCTAssertEqual(TenantID("shard-1").description, "shard-1")
        XCTAssertEqual(TenantID.defaultTenant.description, "(default)")
    }
}
