import CatbirdTestSupport
import Foundation
import XCTest

/// Wildcards and plain regexps matched without ICU (the glob and the small automaton,
/// docs/matching.md#how-wildcards-and-regexps-are-matched) are bounded like ICU's searches: a
/// worker gives them the request's 1 ms slice, then the request goes to the matching lane,
/// which stops them at the request's 100 ms budget (docs/matching.md#evaluation-budget).
///
/// Regression (tester findings tester30b-F4 and F5, their exact mocks and requests): only ICU
/// was ever stopped. 50 wildcards `*` + 3,999 `a` + `b*` + i `a`s held a worker about 0.75 s for
/// one 7,903-byte request, and 500 regexps `a{50}[x][y][!]` about 0.45 s for an 8,002-byte one,
/// with nothing stopped, counted or sent to the lane, while another tenant's requests waited
/// behind them. Each request now reaches the lane (counted in
/// `catbird_slow_matching_requests_total`), and its 404 says the mocks were skipped for the
/// budget (`catbird_regexp_budget_overruns_total`).
final class LongPatternBudgetTests: XCTestCase {
    func testManyLongWildcardsAreStoppedAtTheSliceAndTheBudget() throws {
        let mocks = (0..<50).map { i in "*" + String(repeating: "a", count: 3_999) + "b*" + String(repeating: "a", count: i) }
        let target = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)
        try assertStopped(kind: "wildcard", mocks: mocks, target: target)
    }

    func testManyAutomatonRegexpsAreStoppedAtTheSliceAndTheBudget() throws {
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        func base36(_ value: Int) -> String {
            var value = value
            var text = ""
            repeat {
                text = String(digits[value % 36]) + text
                value /= 36
            } while value > 0
            return text
        }
        let mocks = (0..<500).map { i in "a{50}" + base36(i).map { "[\($0)]" }.joined() + "[!]" }
        try assertStopped(kind: "regexp", mocks: mocks, target: "/" + String(repeating: "a", count: 8_000) + "k")
    }

    /// The finding's short form: 1,000 such regexps (no literal of 3 bytes, so each is tried for
    /// every URL) and a 202-byte URL, each search too short to read the clock, held a worker
    /// 38 ms per request. The worker now counts the mocks it tries against its slice of CPU
    /// time, and the request goes to the lane.
    func testManyCheapAutomatonSearchesAddUpToTheSlice() throws {
        let mocks = (0..<1_000).map { i in "a{50}" + String(i, radix: 36).map { "[\($0)]" }.joined() + "[!]" }
        try LaunchedServer.withTemporaryDatabase { _, client in
            for value in mocks { try E2E.addMock(client, tenant: "a", url: value, kind: "regexp", body: "A") }
            let before = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
            let answer = try client.request("GET", "/" + String(repeating: "a", count: 200) + "k", headers: E2E.tenantHeader("a"))
            XCTAssertEqual(answer.status, 404, answer.text)
            let after = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
            XCTAssertEqual(after - before, 1, "matched on the lane once the worker's slice was spent")
        }
    }

    private func assertStopped(kind: String, mocks: [String], target: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try LaunchedServer.withTemporaryDatabase { _, client in
            for value in mocks {
                try E2E.addMock(client, tenant: "a", url: value, kind: kind, body: "A", file: file, line: line)
            }
            let before = try E2E.metrics(client)
            let answer = try client.request("GET", target, headers: E2E.tenantHeader("a"))
            XCTAssertEqual(answer.status, 404, answer.text, file: file, line: line)
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("ran out of the 100 ms evaluation budget"), reason, file: file, line: line)
            let after = try E2E.metrics(client)
            XCTAssertEqual(
                (after["catbird_slow_matching_requests_total"] ?? 0) - (before["catbird_slow_matching_requests_total"] ?? 0), 1,
                "matched on the lane after the worker's slice", file: file, line: line)
            XCTAssertGreaterThan(
                (after["catbird_regexp_budget_overruns_total"] ?? 0) - (before["catbird_regexp_budget_overruns_total"] ?? 0), 0,
                file: file, line: line)
        }
    }
}
