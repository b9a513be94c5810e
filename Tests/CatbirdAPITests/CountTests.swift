import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `count(matching:)`: journaled requests of the caller's tenant matching a pattern.
final class CountTests: CatbirdTestCase {
    func testCountIsPerTenant() throws {
        let scenario = try TwoTenants()
        XCTAssertEqual(try scenario.p.count(matching: TwoTenants.feed), 1)
        XCTAssertEqual(try scenario.q.count(matching: TwoTenants.feed), 2)
        XCTAssertEqual(try scenario.admin.count(matching: TwoTenants.feed), 0)
        XCTAssertEqual(try scenario.p.count(matching: TwoTenants.createPost), 1, "header pattern matched")
        XCTAssertEqual(try scenario.q.count(matching: TwoTenants.createPost), 0)
        XCTAssertEqual(try scenario.p.count(matching: RequestPattern(method: .GET, url: PatternMatch.wildcard("*"))), 2)
        XCTAssertEqual(try scenario.p.count(matching: FeedMock()), 1, "CatbirdMockConvertible overload")
        XCTAssertEqual(try scenario.q.count(matching: FeedMock()), 2)
        assertCatbirdError(400, try scenario.p.count(matching: RequestPattern(method: .GET, url: PatternMatch.regexp("(("))))
    }

    func testCountIsPerTenantAsync() async throws {
        let scenario = try TwoTenants()
        let p = try await scenario.p.count(matching: TwoTenants.feed)
        let q = try await scenario.q.count(matching: TwoTenants.feed)
        let qMock = try await scenario.q.count(matching: FeedMock())
        let admin = try await scenario.admin.count(matching: TwoTenants.shared)
        XCTAssertEqual([p, q, qMock, admin], [1, 2, 2, 1])
        await assertCatbirdErrorAsync(400) { try await scenario.q.count(matching: RequestPattern(method: .GET, url: PatternMatch.regexp("["))) }
    }
}

private struct FeedMock: CatbirdMockConvertible {
    var pattern: RequestPattern { TwoTenants.feed }
    var response: ResponseMock { ResponseMock() }
}
