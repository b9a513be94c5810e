import CatbirdTestSupport
import Foundation
import XCTest

/// A regexp mock gets an evaluation budget per request (docs/matching.md#evaluation-budget): a
/// catastrophic expression is stopped, counts as not matching, and the request goes on to the
/// next mock at once instead of running for minutes. The overrun is shown where users look: the
/// 404's reason (and so its journal entry) and `catbird_regexp_budget_overruns_total`.
final class RegexpBudgetTests: XCTestCase {
    /// `(a+)+` against 40 a's and a mismatch tries about 2^40 ways: minutes without a budget.
    static let catastrophic = "^/(a+)+$"
    static let slowTarget = "/" + String(repeating: "a", count: 40) + "!"

    func testACatastrophicRegexpIsStoppedAndTheNextMockAnswers() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: Self.catastrophic, kind: "regexp", body: "never")
        try E2E.addMock(client, url: "/a*", kind: "wildcard", body: "next")
        let started = ContinuousClock.now
        let response = try client.request("GET", Self.slowTarget)
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "next")
        XCTAssertLessThan(elapsed, .seconds(3), "the budget is 100 ms; took \(elapsed)")
        XCTAssertEqual(try E2E.metrics(client)["catbird_regexp_budget_overruns_total"], 1, "the skipped mock is counted")
        // A request the expression answers quickly still matches it.
        XCTAssertEqual(try client.request("GET", "/aaaa").text, "never")
        XCTAssertEqual(try E2E.metrics(client)["catbird_regexp_budget_overruns_total"], 1, "a quick evaluation is no overrun")
    }

    /// Regression (tester59b-F3): the request a later mock answered after an earlier one ran out
    /// of the budget (the budget is wall time on the matching lane, so which mock answers can
    /// change with the machine's load) was journaled as a plain hit of the later mock; only the
    /// log named the skipped one. Its journal entry's `problem` now names it.
    func testAHitAfterAMockSkippedForItsBudgetNamesItInTheJournal() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "bud", url: Self.catastrophic, kind: "regexp", body: "never")
        try E2E.addMock(client, tenant: "bud", url: "*", kind: "wildcard", body: "CATCHALL")
        let mockID = JSONNumber.int(try E2E.mocks(client, tenant: "bud").first?["id"]) ?? -1
        let response = try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("bud"))
        XCTAssertEqual(response.text, "CATCHALL")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "bud").last)
        XCTAssertEqual(entry["answeredBy"] as? String, "mock")
        // (On a machine busy enough that the 3-s wall cap ended the search, `…budget's wall-time cap: …` follows.)
        let problem = try XCTUnwrap(entry["problem"] as? String)
        XCTAssertTrue(
            problem.hasPrefix(
                "answered by a later mock: mock \(mockID) (GET regexp \"^/(a+)+$\") of tenant \"bud\" was skipped: its regular "
                    + "expression ran out of the 100 ms evaluation budget"), problem)
        // A hit with nothing skipped before it has no problem.
        XCTAssertEqual(try client.request("GET", "/b", headers: E2E.tenantHeader("bud")).text, "CATCHALL")
        XCTAssertNil(try XCTUnwrap(try E2E.journal(client, tenant: "bud").last)["problem"] as? String)
    }

    /// When nothing else answers, the 404's reason names the mock that ran out of time, and the
    /// journal entry keeps that answer.
    func testA404NamesTheMockThatRanOutOfTime() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "budget", url: Self.catastrophic, kind: "regexp", body: "never")
        let mockID = JSONNumber.int(try E2E.mocks(client, tenant: "budget").first?["id"])
        XCTAssertNotNil(mockID)
        let response = try client.request("GET", Self.slowTarget, headers: E2E.tenantHeader("budget"))
        let expected = "mock \(mockID ?? -1) (GET regexp \"^/(a+)+$\") of tenant \"budget\" was skipped: its regular expression ran out of the 100 ms evaluation budget"
        E2E.assertError(response, status: 404, reasonContains: expected)
        XCTAssertEqual(try E2E.metrics(client)["catbird_regexp_budget_overruns_total"], 1)

        let entry = try XCTUnwrap(try E2E.journal(client, tenant: "budget").last)
        let id = JSONNumber.int(entry["id"]) ?? -1
        let body = try client.request("GET", "/catbird/api/requests/\(id)/response/body", headers: E2E.tenantHeader("budget"))
        XCTAssertEqual(body.status, 200, body.text)
        XCTAssertTrue((body.object["reason"] as? String ?? "").contains(expected), "the journaled 404 says it too: \(body.text)")
    }
}
