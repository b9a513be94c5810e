import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `dropTenant()`: the caller's tenant's mocks and journal go, other tenants stay.
final class TenantTests: CatbirdTestCase {
    func testDropTenantDropsOnlyTheCaller() throws {
        let scenario = try TwoTenants()
        XCTAssertTrue(try scenario.p.dropTenant(), "the id \(TwoTenants.pId) travels percent-encoded")
        XCTAssertFalse(try scenario.p.dropTenant(), "already gone: 404 → false")
        XCTAssertEqual(try scenario.p.mocks().count, 0)
        XCTAssertEqual(try scenario.p.requests().requests.count, 0)
        XCTAssertEqual(try scenario.server.appRequest("GET", "/api/feed", parallelId: TwoTenants.pId).status, 404)
        XCTAssertEqual(try scenario.q.mocks().count, 1)
        XCTAssertEqual(try scenario.q.requests().requests.count, 2)
        XCTAssertEqual(try scenario.admin.mocks().count, 1)
        XCTAssertTrue(try scenario.p.dropTenant(), "the app request above made P again")

        // The default tenant: removeAll + clear journal.
        XCTAssertTrue(try scenario.admin.dropTenant())
        XCTAssertEqual(try scenario.admin.mocks().count, 0)
        XCTAssertEqual(try scenario.admin.requests().requests.count, 0)
        XCTAssertEqual(try scenario.q.mocks().count, 1, "the default tenant's drop leaves shards alone")
        XCTAssertEqual(try scenario.q.requests().requests.count, 2)
        XCTAssertTrue(try scenario.server.catbird("").dropTenant(), "an empty id is the default tenant")
    }

    func testDropTenantDropsOnlyTheCallerAsync() async throws {
        let scenario = try TwoTenants()
        let dropped = try await scenario.q.dropTenant()
        XCTAssertTrue(dropped)
        let qMocks = try await scenario.q.mocks()
        let qRequests = try await scenario.q.requests().requests
        let pMocks = try await scenario.p.mocks()
        let pRequests = try await scenario.p.requests().requests
        XCTAssertEqual([qMocks.count, qRequests.count, pMocks.count, pRequests.count], [0, 0, 2, 3])
        let again = try await scenario.q.dropTenant()
        XCTAssertFalse(again)
        let adminDropped = try await scenario.admin.dropTenant()
        XCTAssertTrue(adminDropped)
        let adminMocks = try await scenario.admin.mocks()
        let adminRequests = try await scenario.admin.requests().requests
        XCTAssertEqual([adminMocks.count, adminRequests.count], [0, 0])
        let pAfter = try await scenario.p.mocks()
        XCTAssertEqual(pAfter.count, 2)
    }
}
