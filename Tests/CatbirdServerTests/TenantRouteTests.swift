import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird/api/tenants`, `DELETE /catbird/api/tenants/{id}` and `DELETE /catbird/api/tenants`.
final class TenantRouteTests: XCTestCase {
    /// id → (mocks, requests) as listed.
    private func counts(_ client: RawHTTPClient, line: UInt = #line) throws -> [String: [Int?]] {
        var result: [String: [Int?]] = [:]
        for summary in try E2E.tenants(client, line: line) {
            result[summary["id"] as? String ?? "?"] = [JSONNumber.int(summary["mocks"]), JSONNumber.int(summary["requests"])]
        }
        return result
    }

    func testListsEveryTenantWithItsCounts() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        XCTAssertEqual(try counts(client), ["": [0, 0]], "a new database has only the default tenant")

        try E2E.addMock(client, tenant: nil, url: "/d", body: "d")
        for _ in 0..<2 { _ = try client.request("GET", "/d") }
        try E2E.addMock(client, tenant: "alpha", url: "/a1", body: "a1")
        try E2E.addMock(client, tenant: "alpha", url: "/a2", body: "a2")
        for target in ["/a1", "/a2", "/missing"] { _ = try client.request("GET", target, headers: E2E.tenantHeader("alpha")) }
        _ = try client.request("GET", "/b", headers: E2E.tenantHeader("beta"))

        let summaries = try E2E.tenants(client)
        XCTAssertEqual(summaries.compactMap { $0["id"] as? String }, ["", "alpha", "beta"], "default first, then by id")
        XCTAssertEqual(try counts(client), ["": [1, 2], "alpha": [2, 3], "beta": [0, 1]])
        for summary in summaries {
            let created = summary["createdAt"] as? String ?? ""
            let active = summary["lastActivityAt"] as? String ?? ""
            XCTAssertTrue(E2E.matches(created, E2E.timePattern), "\(summary)")
            XCTAssertTrue(E2E.matches(active, E2E.timePattern), "\(summary)")
            XCTAssertLessThanOrEqual(created, active, "\(summary)")
        }
        // A shard sees only its own row (isolation); the full listing is for requests without the header.
        let asked = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("beta"))
        XCTAssertEqual((asked.object["tenants"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["beta"])
    }

    func testDeletingAPercentEncodedTenantDropsOnlyItsMocksAndJournal() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in ["shard 1", "shard/2", "shard", "other"] {
            try E2E.addMock(client, tenant: tenant, url: "/mine", body: "mock of \(tenant)")
            XCTAssertEqual(try client.request("GET", "/mine", headers: E2E.tenantHeader(tenant)).text, "mock of \(tenant)")
        }
        try E2E.addMock(client, tenant: nil, url: "/shared", body: "shared")
        _ = try client.request("GET", "/shared")

        let dropped = try client.request("DELETE", "/catbird/api/tenants/shard%201")
        XCTAssertEqual(dropped.status, 204, dropped.text)
        XCTAssertEqual(try counts(client), ["": [1, 1], "shard/2": [1, 1], "shard": [1, 1], "other": [1, 1]])
        XCTAssertEqual(try E2E.mocks(client, tenant: "shard 1").count, 0)
        XCTAssertEqual(try E2E.journal(client, tenant: "shard 1").count, 0)
        XCTAssertEqual(try client.request("GET", "/mine", headers: E2E.tenantHeader("shard 1")).status, 404)
        XCTAssertEqual(try client.request("GET", "/mine", headers: E2E.tenantHeader("shard")).text, "mock of shard")
        XCTAssertEqual(try client.request("GET", "/shared", headers: E2E.tenantHeader("shard 1")).text, "shared")

        let slash = try client.request("DELETE", "/catbird/api/tenants/shard%2F2")
        XCTAssertEqual(slash.status, 204, slash.text)
        XCTAssertEqual(try E2E.mocks(client, tenant: "shard/2").count, 0)
        XCTAssertEqual(try E2E.journal(client, tenant: "shard/2").count, 0)
        XCTAssertEqual(try E2E.mocks(client, tenant: "shard").count, 1, "a tenant whose id is a prefix is kept")
        XCTAssertEqual(try E2E.journal(client, tenant: "shard").count, 2)
        XCTAssertEqual(try E2E.journal(client, tenant: "other").compactMap { $0["url"] as? String }, ["/mine"])
        XCTAssertEqual(Set(try E2E.tenants(client).compactMap { $0["id"] as? String }), ["", "shard", "other", "shard 1"],
                       "'shard 1' is back: its 404 and fallback requests above were journaled after the drop")

        E2E.assertError(try client.request("DELETE", "/catbird/api/tenants/shard%2F2"), status: 404, reasonContains: "shard/2")
    }

    func testDroppedTenantsMocksStayGoneAfterARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: "gone", url: "/x", body: "x")
        try E2E.addMock(client, tenant: "kept", url: "/x", body: "kept x")
        _ = try client.request("GET", "/x", headers: E2E.tenantHeader("gone"))
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/gone").status, 204)

        try server.restart()
        client = try server.client()

        XCTAssertEqual(try counts(client), ["": [0, 0], "kept": [1, 0]])
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("gone")).status, 404)
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("kept")).text, "kept x")
    }

    func testDeletingAnUnknownTenantIs404() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "known", url: "/k", body: "k")

        E2E.assertError(try client.request("DELETE", "/catbird/api/tenants/nobody"), status: 404, reasonContains: "nobody")
        E2E.assertError(try client.request("DELETE", "/catbird/api/tenants/know"), status: 404)
        XCTAssertEqual(try counts(client), ["": [0, 0], "known": [1, 0]])
        E2E.assertError(try client.request("GET", "/catbird/api/tenants/known"), status: 405)
    }

    func testDeletingAllTenantsDropsEveryMockAndJournal() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for tenant in [nil, "P", "Q"] as [String?] {
            try E2E.addMock(client, tenant: tenant, url: "/all", body: "all")
            _ = try client.request("GET", "/all", headers: E2E.tenantHeader(tenant))
        }

        let dropped = try client.request("DELETE", "/catbird/api/tenants?all=true")
        XCTAssertEqual(dropped.status, 204, dropped.text)

        XCTAssertEqual(try counts(client), ["": [0, 0]], "only the (empty) default tenant is left")
        for tenant in [nil, "P", "Q"] as [String?] {
            XCTAssertEqual(try E2E.mocks(client, tenant: tenant).count, 0)
            XCTAssertEqual(try E2E.journal(client, tenant: tenant).count, 0)
        }
        XCTAssertEqual(try client.request("GET", "/all").status, 404)
        XCTAssertEqual(try client.request("GET", "/all", headers: E2E.tenantHeader("P")).status, 404)
        // Tenants come back on use.
        try E2E.addMock(client, tenant: "P", url: "/again", body: "again")
        XCTAssertEqual(try client.request("GET", "/again", headers: E2E.tenantHeader("P")).text, "again")
    }
}
