import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird/api/tenants` says whether the caller got the admin's listing (`"admin": true`,
/// every tenant) or its own row only, so the web page knows when to offer the admin token.
final class TenantListingAdminFieldTests: XCTestCase {
    private func admin(_ answer: RawResponse) -> Bool? { answer.object["admin"] as? Bool }

    func testAdminFieldFollowsWhoIsTheAdmin() throws {
        let open = try TestServer()
        defer { open.removeFiles() }
        let openClient = try open.client()
        XCTAssertEqual(admin(try openClient.request("GET", "/catbird/api/tenants")), true, "no token: no header is the admin")
        XCTAssertEqual(admin(try openClient.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("s1"))), false)

        let guarded = try TestServer { $0.adminToken = "t0ken" }
        defer { guarded.removeFiles() }
        let client = try guarded.client()
        XCTAssertEqual(admin(try client.request("GET", "/catbird/api/tenants")), false, "with a token, no header is not enough")
        XCTAssertEqual(admin(try client.request("GET", "/catbird/api/tenants", headers: [("Authorization", "Bearer t0ken")])), true)
    }
}
