import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `mocks()`: each tenant lists its own mocks only.
final class MocksListTests: CatbirdTestCase {
    func testMocksAreListedPerTenant() throws {
        let scenario = try TwoTenants()
        scenario.checkMocks(p: try scenario.p.mocks(), q: try scenario.q.mocks(), admin: try scenario.admin.mocks())
    }

    func testMocksAreListedPerTenantAsync() async throws {
        let scenario = try TwoTenants()
        scenario.checkMocks(p: try await scenario.p.mocks(), q: try await scenario.q.mocks(), admin: try await scenario.admin.mocks())
    }

    /// A listed mock can be sent back as is: `update` with its pattern replaces it in place.
    func testListedMockRoundTrips() throws {
        let scenario = try TwoTenants()
        let before = try scenario.p.mocks()
        let feed = try XCTUnwrap(before.first)
        var response = feed.response
        response.body = Data("changed".utf8)
        try scenario.p.send(.update(feed.pattern, response))
        let after = try scenario.p.mocks()
        XCTAssertEqual(after.map(\.pattern), before.map(\.pattern))
        XCTAssertEqual(after.first?.position, feed.position)
        XCTAssertEqual(after.first?.response.body, Data("changed".utf8))
        XCTAssertEqual(try scenario.q.mocks().first?.response.body, TwoTenants.qFeedBody, "Q is untouched")
    }
}
