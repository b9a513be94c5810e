import CatbirdTestSupport
import Foundation
import XCTest

/// A body `regexp` shares the request's one evaluation budget with its url and header patterns
/// (docs/matching.md#evaluation-budget), and its overrun is shown like a url regexp's: a
/// warning in the log, `catbird_regexp_budget_overruns_total`, and the 404's reason.
///
/// Found by a new user (exact inputs): one mock `POST /b` with body regexp `(a|aa)+$` and a body
/// of 5,000 `a` then `!` got a 404 whose reason said only "body differs", nothing logged, the
/// metric stayed 0; with 100 such mocks (`(a|aa)+$1` … `(a|aa)+$100`) one request took 10.35 s
/// (100 ms per mock instead of per request).
final class BodyRegexpBudgetTests: XCTestCase {
    static let slowBody = String(repeating: "a", count: 5000) + "!"

    func testABodyRegexpOverrunIsLoggedCountedAndNamedInThe404() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let added = try client.json("POST", "/catbird/api/mocks", Self.bodyRegexpMock("(a|aa)+$"), headers: E2E.tenantHeader("bodyre"))
            XCTAssertEqual(added.status, 201, added.text)
            let response = try client.request(
                "POST", "/b", headers: E2E.tenantHeader("bodyre") + [("Content-Type", "text/plain")], body: Array(Self.slowBody.utf8))
            E2E.assertError(response, status: 404, reasonContains: "body regexp \"(a|aa)+$\") of tenant \"bodyre\" was skipped: its regular expression ran out of the 100 ms evaluation budget")
            XCTAssertEqual(try E2E.metrics(client)["catbird_regexp_budget_overruns_total"], 1, "the overrun is counted")
            let warning = server.stderrText.split(separator: "\n").first { $0.contains("[warning]") && $0.contains("evaluation budget") }
            XCTAssertNotNil(warning, "the overrun is logged as a warning: \(server.stderrText.suffix(2000))")
            XCTAssertTrue(warning?.contains("body regexp \"(a|aa)+$\"") ?? false, "the warning names the body regexp: \(warning ?? "")")
        }
    }

    /// 100 body-regexp mocks: one request's regexps share 100 ms, not 100 ms each (10 s before);
    /// all 100 overruns are counted, and logged in one warning for the request (it was one line
    /// per mock: 100 lines for one request), naming the first 3 as the 404 does.
    func testAHundredBodyRegexpMocksShareOneRequestsBudget() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            for n in 1...100 {
                let added = try client.json("POST", "/catbird/api/mocks", Self.bodyRegexpMock("(a|aa)+$\(n)"), headers: E2E.tenantHeader("bodyre"))
                XCTAssertEqual(added.status, 201, added.text)
            }
            let started = ContinuousClock.now
            let response = try client.request("POST", "/b", headers: E2E.tenantHeader("bodyre"), body: Array(Self.slowBody.utf8))
            let elapsed = ContinuousClock.now - started
            E2E.assertError(response, status: 404, reasonContains: "ran out of the 100 ms evaluation budget")
            XCTAssertLessThan(elapsed, .seconds(3), "one request's budget is 100 ms for all of its regexps; took \(elapsed)")
            XCTAssertEqual(try E2E.metrics(client)["catbird_regexp_budget_overruns_total"], 100, "each mock skipped is counted (one per mock and request)")
            XCTAssertLessThan(response.text.utf8.count, 4000, "the reason names a few skipped mocks, not all 100: \(response.text.prefix(600))")
            E2E.assertError(response, status: 404, reasonContains: "and 97 more mocks were skipped")
            let warnings = server.stderrText.split(separator: "\n").filter { $0.contains("[warning]") && $0.contains("evaluation budget") }
            XCTAssertEqual(warnings.count, 1, "one warning for the request's 100 overruns: \(warnings.prefix(3))")
            let warning = warnings.first ?? ""
            XCTAssertTrue(warning.contains("body regexp \"(a|aa)+$1\") of tenant \"bodyre\" was skipped"), "names the first: \(warning)")
            XCTAssertTrue(
                warning.hasSuffix("; and 97 more mocks were skipped the same way for POST \"/b\" (tenant \"bodyre\")"),
                "counts the rest and names the request: \(warning)")
        }
    }

    /// The `update` action of a mock `POST /b` whose body pattern is the regexp `expression`.
    static func bodyRegexpMock(_ expression: String) -> String {
        E2E.jsonText([
            "type": "update",
            "pattern": [
                "method": "POST", "url": ["kind": "equal", "value": "/b"], "headers": [String: Any](),
                "body": ["kind": "regexp", "value": expression],
            ] as [String: Any],
            "response": ["status": 200],
        ])
    }
}
