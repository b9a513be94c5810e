import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `tenants()` returns every tenant while the server lists them a page of 1,000 at a time
/// (tester finding T11-F3): it follows `nextAfter` to the last page.
final class TenantPagesClientTests: XCTestCase {
    private static let count = 1_050

    /// A server with ``count`` tenants `tenant-0` …, made by one journaled request each (the
    /// finding's way), and their ids in the server's order with the default tenant's.
    private func serverWithTenants() throws -> (TestServer, [String]) {
        let server = try TestServer()
        let client = try server.client()
        for index in 0..<Self.count {
            let answer = try client.request("GET", "/t11ten", headers: [(CatbirdAction.parallelIdHeaderField, "tenant-\(index)")])
            XCTAssertEqual(answer.status, 404)
        }
        XCTAssertEqual(try client.request("GET", "/catbird/api/tenants").object["hasMore"] as? Bool, true, "the server pages this many")
        return (server, ([""] + (0..<Self.count).map { "tenant-\($0)" }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    func testTenantsFollowsThePagesToTheEnd() throws {
        let (server, every) = try serverWithTenants()
        defer { server.removeFiles() }
        // The admin's list: a shard's client gets its own row only (tester finding tester48c-F2).
        let tenants = try server.catbird().tenants()
        XCTAssertEqual(tenants.map(\.id), every)
        XCTAssertEqual(tenants.first { $0.id == "tenant-7" }?.requests, 1)
    }

    func testAsyncTenantsFollowsThePagesToTheEnd() async throws {
        let (server, every) = try serverWithTenants()
        defer { server.removeFiles() }
        let tenants = try await server.catbird().tenants()
        XCTAssertEqual(tenants.map(\.id), every)
    }
}
