import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester39b-F6: at the shipped unit's `--log-level warning`, the admin's drop of
/// every tenant and removal of every tenant's mocks left no line in the log (an info request
/// line only), the first thing an on-call person looks for when every shard's mocks are gone.
/// Both are now warnings, with what they took.
final class AdminWipeLogTests: XCTestCase {
    func testWipingEveryTenantIsLoggedAtWarningLevel() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            for tenant in ["victim-1", "victim-2"] { try E2E.addMock(client, tenant: tenant, url: "/x", body: "x") }
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks?all=true").status, 200)
            try E2E.addMock(client, tenant: "victim-3", url: "/x", body: "x")
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true").status, 204)
            let log = try server.terminate().stderr
            XCTAssertTrue(log.contains("[warning] admin: removed every tenant's mocks: 2 mocks (DELETE /catbird/api/mocks?all=true)"), log)
            XCTAssertTrue(log.contains("[warning] admin: dropped every tenant: 3 tenants besides the default one"), log)
        }
    }
}
