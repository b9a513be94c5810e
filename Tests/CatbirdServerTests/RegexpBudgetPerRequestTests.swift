import CatbirdDomain
import CatbirdStorage
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The evaluation budget is one per request, shared by every regular expression the request
/// meets (url, header and body patterns of all the mocks it is matched against), not one per
/// mock (docs/matching.md#evaluation-budget): ``MockStore/serve(tenant:method:target:headerValue:body:budget:outOfTime:)``
/// on a real database file, without a server.
final class RegexpBudgetPerRequestTests: XCTestCase {
    private var directory: URL!
    private var mocks: MockStore!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let connection = try Database(path: directory.appendingPathComponent("catbird.sqlite").path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        mocks = try MockStore(database: SerialDatabase(connection))
    }

    override func tearDownWithError() throws {
        mocks = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// 20 mocks whose body regexp is catastrophic for the body, then one whose header regexp is
    /// catastrophic for the header's value: with 100 ms per mock the request took 2 s and more; with one budget
    /// for the request the first overrun spends it and each later expression is stopped at its
    /// first check. Every mock stopped is reported once.
    func testOneBudgetForAllOfARequestsRegexps() throws {
        let tenant = TenantID("budget")
        for n in 1...20 {
            try mocks.update(
                RequestPattern(method: .POST, url: .equal("/b"), body: BodyPattern(kind: .regexp, value: "(a|aa)+$\(n)")),
                response: ResponseMock(status: 200), tenant: tenant)
        }
        try mocks.update(
            RequestPattern(method: .POST, url: .wildcard("/*"), headers: ["X-Slow": .regexp("(a|aa)+$")]),
            response: ResponseMock(status: 202), tenant: tenant)

        let body = Array((String(repeating: "a", count: 5000) + "!").utf8)
        var stopped: [Int64] = []
        let started = ContinuousClock.now
        let hit = mocks.serve(
            tenant: tenant, method: "POST", target: "/b", headerValue: { $0 == "X-Slow" ? String(repeating: "a", count: 3000) + "!" : nil },
            body: body, budget: .milliseconds(100), outOfTime: { stopped.append($0.id) })
        let elapsed = ContinuousClock.now - started

        XCTAssertNil(hit, "every mock's expression was stopped: none matched")
        XCTAssertEqual(stopped.count, 21, "the 20 body regexps and the header regexp: \(stopped)")
        XCTAssertEqual(Set(stopped).count, stopped.count, "each mock reported once")
        XCTAssertLessThan(elapsed, .seconds(1), "one 100 ms budget for the whole request (per mock it would be 2.1 s); took \(elapsed)")
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(100), "the budget itself is spent before expressions are stopped")
    }

    /// A cheap expression still finishes after the budget is spent: a later mock whose body
    /// regexp answers at once still matches the same request.
    func testACheapExpressionAfterTheBudgetIsSpentStillMatches() throws {
        let tenant = TenantID("budget")
        try mocks.update(
            RequestPattern(method: .POST, url: .equal("/b"), body: BodyPattern(kind: .regexp, value: "(a|aa)+$")),
            response: ResponseMock(status: 200), tenant: tenant)
        try mocks.update(
            RequestPattern(method: .POST, url: .equal("/b"), body: BodyPattern(kind: .regexp, value: "^a")),
            response: ResponseMock(status: 201), tenant: tenant)
        var stopped = 0
        let hit = mocks.serve(
            tenant: tenant, method: "POST", target: "/b", headerValue: { _ in nil },
            body: Array((String(repeating: "a", count: 5000) + "!").utf8), budget: .milliseconds(100), outOfTime: { _ in stopped += 1 })
        XCTAssertEqual(hit?.mock.response.status, 201)
        XCTAssertEqual(stopped, 1)
    }
}
