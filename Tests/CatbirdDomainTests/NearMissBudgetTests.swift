@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// A server's near-miss search is bounded by ``MockStore/nearMissWorkBudget`` whatever the
/// table's shape (docs/matching.md#near-misses; tester finding try10b F4: 20,000 mocks that each
/// name their own header, with varied methods, url kinds and body patterns, share no field for
/// the bounds to use, and every 404 compared them all, 11 ms of a shared worker). Its table here,
/// scaled to 6,000 mocks: the search stops at the budget with the closest it found, says so, and
/// the same request gets the same answer; a table the bounds rule out stays exhaustive.
final class NearMissBudgetTests: StorageTestCase {
    /// The tester's `distinct` table (try10b's nearmiss.py): mock i is a random method of 5, url
    /// `wildcard "/api/<i>/*/<n>"` or `equal "/api/<i>/s/<n>"`, header `X-H<i>: equal "v<i>"`,
    /// body `contains "b<i>"`.
    private func distinctTable(_ mocks: MockStore, tenant: TenantID, count: Int) throws {
        var random = SeededRandom(seed: 10)
        for index in 0..<count {
            let number = random.below(1 << 30)
            let url: PatternMatch = random.chance(50) ? .wildcard("/api/\(index)/*/\(number)") : .equal("/api/\(index)/s/\(number)")
            let pattern = RequestPattern(
                method: random.pick([.GET, .POST, .PUT, .PATCH, .DELETE] as [RequestPattern.HTTPMethod]), url: url, headers: ["X-H\(index)": .equal("v\(index)")],
                body: BodyPattern(kind: .contains, value: "b\(index)"))
            _ = try mocks.update(pattern, response: ResponseMock(status: 200), tenant: tenant)
        }
    }

    private let misses = [
        NearMissTestRequest(method: "GET", target: "/api/zz1/q/1", headers: ["x-other": "1"], body: []),
        NearMissTestRequest(method: "POST", target: "/api/zz77/q/77", headers: [:], body: Array("b12".utf8)),
        NearMissTestRequest(method: "GET", target: "/api/1499/s/5", headers: ["x-h1499": "v1499"], body: []),
    ]

    func testATableOfDistinctFieldsIsSearchedWithinTheBudgetAndTheAnswerSaysSo() throws {
        let mocks = try mockStore("distinct.sqlite")
        let tenant = TenantID("big")
        try distinctTable(mocks, tenant: tenant, count: 6000)
        for miss in misses {
            let budgeted = mocks.nearMisses(
                tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body,
                budget: MockStore.nearMissWorkBudget, timeLimit: nil)
            XCTAssertEqual(budgeted.cutShort, .budget, "\(miss)")
            XCTAssertEqual(budgeted.mockCount, 6000, "\(miss)")
            XCTAssertLessThan(budgeted.lookedAt, 6000, "\(miss)")
            // Each mock looked at costs one unit, one more if compared: the budget holds (one
            // unit's overshoot at most).
            XCTAssertLessThanOrEqual(budgeted.lookedAt + budgeted.compared, MockStore.nearMissWorkBudget + 1, "\(miss)")
            // A budget's end depends on the request and the table alone: the answer may be kept, and is the same again.
            XCTAssertTrue(budgeted.complete, "\(miss)")
            let again = mocks.nearMisses(
                tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body,
                budget: MockStore.nearMissWorkBudget, timeLimit: nil)
            XCTAssertEqual(again.closest.map(\.mock.id), budgeted.closest.map(\.mock.id), "\(miss)")

            // The closest found so far: three real mocks at their true distances, none closer
            // than the true closest three.
            let expected = mocks.exhaustiveNearMisses(tenant: tenant, miss)
            XCTAssertEqual(budgeted.closest.count, 3, "\(miss)")
            for (found, best) in zip(budgeted.closest, expected) {
                XCTAssertGreaterThanOrEqual(found.distance, best.distance, "\(miss)")
            }

            // Without the budget the same search compares what the bounds leave: the exhaustive three.
            let whole = mocks.nearMisses(
                tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body, timeLimit: nil)
            XCTAssertNil(whole.cutShort, "\(miss)")
            XCTAssertEqual(whole.closest.map(\.mock.id), expected.map(\.id), "\(miss)")
            XCTAssertEqual(whole.closest.map(\.distance), expected.map(\.distance), "\(miss)")
            XCTAssertGreaterThan(whole.lookedAt, budgeted.lookedAt, "\(miss)")
        }
    }

    /// The tester's reference table (`GET equal "/api/items/<i>"`, 1,500 of them): its bounds rule
    /// out nearly every mock, so the budget never ends its search and the three are the exhaustive ones.
    func testATableTheBoundsRuleOutIsNotCutShort() throws {
        let mocks = try mockStore("plain.sqlite")
        let tenant = TenantID("big")
        for index in 0..<1500 {
            _ = try mocks.update(
                RequestPattern(method: .GET, url: .equal("/api/items/\(index)"), headers: [:], body: nil),
                response: ResponseMock(status: 200), tenant: tenant)
        }
        for miss in misses + [NearMissTestRequest(method: "GET", target: "/api/items/x12", headers: [:], body: [])] {
            let report = mocks.nearMisses(
                tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body,
                budget: MockStore.nearMissWorkBudget, timeLimit: nil)
            XCTAssertNil(report.cutShort, "\(miss)")
            let expected = mocks.exhaustiveNearMisses(tenant: tenant, miss)
            XCTAssertEqual(report.closest.map(\.mock.id), expected.map(\.id), "\(miss)")
            XCTAssertEqual(report.closest.map(\.distance), expected.map(\.distance), "\(miss)")
        }
    }
}
