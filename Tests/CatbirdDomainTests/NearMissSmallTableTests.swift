@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import XCTest

/// A request's tenant and the default tenant holding no more mocks than a 404 names
/// (``MockStore/nearMissLimit``) are searched without bounds, each mock compared
/// (docs/matching.md#near-misses): the answer must stay that of comparing every mock (same
/// mocks, order, distances), for every split of up to three mocks between the tenant and the
/// default tenant, matching urls or not, with header and body patterns, and one more mock (four:
/// the bounded search) beside it.
final class NearMissSmallTableTests: StorageTestCase {
    private func store(_ name: String) throws -> MockStore {
        let connection = try Database(path: databasePath("\(name).sqlite"), mode: .readWrite)
        _ = try Schema.migrate(connection)
        return try MockStore(database: SerialDatabase(connection))
    }

    /// Mocks of several kinds, added in this order (positions ascending).
    private let patterns: [RequestPattern] = [
        RequestPattern(method: .GET, url: .equal("/bench"), headers: [:], body: nil),
        RequestPattern(method: .POST, url: .wildcard("/api/*/items"), headers: ["X-Token": .equal("abc")], body: nil),
        RequestPattern(method: .GET, url: .regexp("^/r/[0-9]+$"), headers: [:], body: BodyPattern(kind: .contains, value: "x")),
        RequestPattern(method: .GET, url: .equal("/bench/"), headers: [:], body: nil),
    ]

    private let misses = [
        NearMissTestRequest(method: "GET", target: "/miss/abcdefg", headers: [:], body: []),
        NearMissTestRequest(method: "GET", target: "/benc", headers: [:], body: []),
        NearMissTestRequest(method: "POST", target: "/api/1/items", headers: ["x-token": "abd"], body: []),
        NearMissTestRequest(method: "GET", target: "/r/12", headers: [:], body: Array("y".utf8)),
        NearMissTestRequest(method: "PUT", target: "/bench", headers: [:], body: []),
    ]

    func testASmallTableGetsTheAnswerOfComparingEveryMock() throws {
        var checked = 0
        // Every split of the first `total` patterns: the first `own` in the tenant, the rest in the default tenant.
        for total in 1...4 {
            for own in 0...total {
                let mocks = try store("t\(total)-\(own)")
                let tenant = TenantID("s1")
                for (index, pattern) in patterns.prefix(total).enumerated() {
                    _ = try mocks.update(pattern, response: ResponseMock(status: 200), tenant: index < own ? tenant : .defaultTenant)
                }
                for miss in misses {
                    for asked in [tenant, TenantID.defaultTenant] {
                        let report = mocks.nearMisses(
                            tenant: asked, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body,
                            budget: MockStore.nearMissWorkBudget, timeLimit: nil)
                        let expected = mocks.exhaustiveNearMisses(tenant: asked, miss)
                        let context = "\(total) mocks, \(own) of s1, asked by \(asked.rawValue.isEmpty ? "the default tenant" : "s1"): \(miss)"
                        XCTAssertEqual(report.closest.map(\.mock.id), expected.map(\.id), context)
                        XCTAssertEqual(report.closest.map(\.distance), expected.map(\.distance), context)
                        XCTAssertTrue(report.complete, context)
                        XCTAssertNil(report.cutShort, context)
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, (2 + 3 + 4 + 5) * misses.count * 2)
    }
}
