import CatbirdTestSupport
import Foundation
import XCTest

/// An expression is sent to the matching lane at once only when it was itself found slow on a
/// worker: its own search, from its own start, ran half the 1 ms slice without finishing
/// (docs/tenancy.md#slow-regular-expressions).
///
/// Found by a reviewer: the slice is the whole request's and wall-clock, so an expression that
/// started after earlier work had used the millisecond was stopped at once and marked slow for
/// good; from then on every request reaching it went to the lane (one at a time per tenant, 32
/// admitted, then 429), though the tenant had no slow regular expression.
///
/// Here tenant `quiet` has a `json` body mock for `POST /q` (no regexp; it parses a 63,000-byte
/// body of small objects on the worker, one pass longer than the 1 ms slice) and then a mock
/// whose header `X-Q` must match `[a-z]*q(?=\?)`. One large request, whose `X-Q` is 3,000
/// letters, spends the slice on the parse; the expression then starts and is stopped at its
/// first check, and the request is matched on the lane. Each small request (`X-Q: q?`) must
/// then be matched on a worker, not on the lane.
///
/// Two things keep the mark, were it set, from being lost before the small requests come: the
/// lane's search of the large request's header takes milliseconds (quadratic in its length),
/// so it does not clear the mark (a quick search with the whole budget on a subject as long
/// clears it); and the slice is spent by one pass, admitted before the slice's end, so the
/// expression after it is searched (a second pass over the body would be refused at the
/// slice's end, and the expression not reached). An earlier version of this test (a `jsonPath`
/// mock after the `json` one, and a quick url expression) passed with the rule broken (marked
/// after 0 ms) for both reasons; this one fails then, its small requests going to the lane.
///
/// The large body stays under the 64 KiB a worker reads: a larger one is matched on the body
/// lane (docs/tenancy.md#large-bodies), whose slice grows with the body and which never marks
/// an expression, so it could not show the fault (CI run of 2026-12-02: a 110 KB body's parse
/// fitted the body lane's slice there and the request never reached the matching lane).
final class SlowRegexpMarkTests: XCTestCase {
    func testAnExpressionReachedAfterEarlierWorkSpentTheSliceIsNotMarkedSlow() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let mocks: [(headers: [String: Any], body: [String: String]?, answer: String)] = [
                ([:], ["kind": "json", "value": #"{"never": true}"#], "json"),
                (["X-Q": ["kind": "regexp", "value": #"[a-z]*q(?=\?)"#]], nil, "regexp"),
            ]
            for mock in mocks {
                var pattern: [String: Any] = ["method": "POST", "url": ["kind": "equal", "value": "/q"], "headers": mock.headers]
                if let body = mock.body { pattern["body"] = body }
                let added = try client.json("POST", "/catbird/api/mocks", E2E.jsonText([
                    "type": "update", "pattern": pattern,
                    "response": ["status": 200, "body": Data(mock.answer.utf8).base64EncodedString()],
                ]), headers: E2E.tenantHeader("quiet"))
                XCTAssertEqual(added.status, 201, added.text)
            }
            let large = "[" + Array(repeating: #"{"a":[0]}"#, count: 6_300).joined(separator: ",") + "]"
            XCTAssertLessThan(large.utf8.count, 64 * 1024, "read on a worker, not on the body lane")
            let first = try client.request(
                "POST", "/q", headers: E2E.tenantHeader("quiet") + [("X-Q", String(repeating: "a", count: 3_000))], body: Array(large.utf8))
            // On the lane, with the whole 100 ms budget, neither mock matches.
            XCTAssertEqual(first.status, 404, first.text)
            let laneAfterFirst = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
            XCTAssertEqual(laneAfterFirst, 1, "the large request's expression started after the json parse had spent the slice")

            for _ in 0..<10 {
                let small = try client.request("POST", "/q", headers: E2E.tenantHeader("quiet") + [("X-Q", "q?")], body: Array("[]".utf8))
                XCTAssertEqual(small.text, "regexp")
            }
            XCTAssertEqual(
                try E2E.metrics(client)["catbird_slow_matching_requests_total"], laneAfterFirst,
                "[a-z]*q(?=\\?) was not marked slow: small requests are matched on the workers")
        }
    }
}
