import CatbirdTestSupport
import Foundation
import XCTest

/// `DELETE /catbird/api/mocks`: the admin removes every tenant's mocks and keeps every journal
/// (what `deploy/xcode/start.sh` does at the start of a test run).
final class EveryTenantsMocksRemovalTests: XCTestCase {
    func testRemovesEveryTenantsMocksAndKeepsTheirJournals() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        for tenant in [nil, "P", "Q"] as [String?] {
            try E2E.addMock(client, tenant: tenant, url: "/left", body: "left by \(tenant ?? "default")")
            XCTAssertEqual(try client.request("GET", "/left", headers: E2E.tenantHeader(tenant)).status, 200)
        }
        try E2E.addMock(client, tenant: "P", url: "/second", body: "second")

        let removed = try client.request("DELETE", "/catbird/api/mocks?all=true")
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(JSONNumber.int(removed.object["removed"]), 4)

        for tenant in [nil, "P", "Q"] as [String?] {
            XCTAssertEqual(try E2E.mocks(client, tenant: tenant).count, 0, "\(tenant ?? "default")")
            XCTAssertEqual(try client.request("GET", "/left", headers: E2E.tenantHeader(tenant)).status, 404)
            // The journal keeps the request served before the removal and the 404 after it.
            let statuses = try E2E.journal(client, tenant: tenant).compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }
            XCTAssertEqual(statuses, [200, 404], "\(tenant ?? "default")")
        }
        XCTAssertEqual(Set(try E2E.tenants(client).compactMap { $0["id"] as? String }), ["", "P", "Q"], "tenant rows are kept")

        try server.restart()
        client = try server.client()
        XCTAssertEqual(try client.request("GET", "/left", headers: E2E.tenantHeader("P")).status, 404, "removed for good")
        try E2E.addMock(client, tenant: "P", url: "/new", body: "new")
        XCTAssertEqual(try client.request("GET", "/new", headers: E2E.tenantHeader("P")).text, "new")
        XCTAssertEqual(try E2E.journal(client, tenant: "Q").count, 2)
    }

    func testAShardMayNotRemoveEveryTenantsMocks() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/p", body: "p")
        try E2E.addMock(client, tenant: nil, url: "/d", body: "d")

        E2E.assertError(
            try client.request("DELETE", "/catbird/api/mocks", headers: E2E.tenantHeader("P")), status: 403,
            reasonContains: "removeAll")
        XCTAssertEqual(try client.request("GET", "/p", headers: E2E.tenantHeader("P")).text, "p")
        XCTAssertEqual(try client.request("GET", "/d").text, "d")
    }

    func testNothingToRemoveIsNotAnError() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let removed = try client.request("DELETE", "/catbird/api/mocks?all=true")
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(JSONNumber.int(removed.object["removed"]), 0)
    }
}
