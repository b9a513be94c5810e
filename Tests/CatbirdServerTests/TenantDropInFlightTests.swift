import CatbirdTestSupport
import Foundation
import XCTest

/// A tenant dropped while one of its requests waits for a delayed mock: the answer is still
/// journaled (an answered request is always journaled), and that entry re-creates the tenant
/// (docs/tenancy.md, "Dropping a tenant while its requests are in flight").
final class TenantDropInFlightTests: ServerTestCase {
    func testALateAnswerAfterTheDropIsJournaledAndRecreatesTheTenant() throws {
        try E2E.addMock(client, tenant: "DL", url: "/slow", body: "late", delay: 5)
        let waiting = try server.client()
        try waiting.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: DL\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)  // arrived, its mock chosen and parked for the delay, before the drop
        let dropped = try client.request("DELETE", "/catbird/api/tenants/DL", headers: E2E.tenantHeader("DL"))
        XCTAssertEqual(dropped.status, 204, dropped.text)
        XCTAssertEqual(try waiting.readResponse().text, "late", "the answer still goes out")
        let journal = try E2E.journal(client, tenant: "DL")
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/slow"], "one entry: the late answer")
        let mocks = try client.request("GET", "/catbird/api/mocks", headers: E2E.tenantHeader("DL"))
        XCTAssertEqual((mocks.object["mocks"] as? [Any])?.count, 0, "the drop removed the mock: \(mocks.text)")
    }
}
