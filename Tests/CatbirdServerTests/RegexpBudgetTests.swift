import CatbirdTestSupport
import Foundation
import XCTest

/// A regexp mock gets an evaluation budget per request (docs/matching.md#evaluation-budget): a
/// catastrophic expression is stopped, counts as not matching, and the request goes on to the
/// next mock at once instead of running for minutes.
final class RegexpBudgetTests: XCTestCase {
    func testACatastrophicRegexpIsStoppedAndTheNextMockAnswers() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // `(a+)+` against 40 a's and a mismatch tries about 2^40 ways: minutes without a budget.
        try E2E.addMock(client, url: "^/(a+)+$", kind: "regexp", body: "never")
        try E2E.addMock(client, url: "/a*", kind: "wildcard", body: "next")
        let target = "/" + String(repeating: "a", count: 40) + "!"
        let started = ContinuousClock.now
        let response = try client.request("GET", target)
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "next")
        XCTAssertLessThan(elapsed, .seconds(3), "the budget is 100 ms; took \(elapsed)")
        // A request the expression answers quickly still matches it.
        XCTAssertEqual(try client.request("GET", "/aaaa").text, "never")
    }
}
