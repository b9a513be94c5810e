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
/// admitted, then 429), though the tenant had no slow regular expression. Here tenant `quiet`
/// has a `json` and a `jsonPath` body mock for `POST /q?n=1` (no regexp; each parses a
/// 63,000-byte body of small objects on the worker, together longer than the 1 ms slice) and
/// then the quick url regexp mock `q(?=\?)`; one large request spends the slice on the first
/// two, then each small request must be matched on a worker, not on the lane.
///
/// The large body stays under the 64 KiB a worker reads: a larger one is matched on the body
/// lane (docs/tenancy.md#large-bodies), whose slice grows with the body and which never marks
/// an expression, so it could not show the fault (CI run of 2026-12-02: a 110 KB body's parse
/// fitted the body lane's slice there and the request never reached the matching lane).
final class SlowRegexpMarkTests: XCTestCase {
    func testAnExpressionReachedAfterEarlierWorkSpentTheSliceIsNotMarkedSlow() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            let mocks: [(url: [String: String], body: [String: String]?, answer: String)] = [
                (["kind": "equal", "value": "/q?n=1"], ["kind": "json", "value": #"{"never": true}"#], "json"),
                (["kind": "equal", "value": "/q?n=1"], ["kind": "jsonPath", "value": "$[0].never"], "jsonPath"),
                (["kind": "regexp", "value": #"q(?=\?)"#], nil, "regexp"),
            ]
            for mock in mocks {
                var pattern: [String: Any] = ["method": "POST", "url": mock.url, "headers": [String: Any]()]
                if let body = mock.body { pattern["body"] = body }
                let added = try client.json("POST", "/catbird/api/mocks", E2E.jsonText([
                    "type": "update", "pattern": pattern,
                    "response": ["status": 200, "body": Data(mock.answer.utf8).base64EncodedString()],
                ]), headers: E2E.tenantHeader("quiet"))
                XCTAssertEqual(added.status, 201, added.text)
            }
            let large = "[" + Array(repeating: #"{"a":[0]}"#, count: 6_300).joined(separator: ",") + "]"
            XCTAssertLessThan(large.utf8.count, 64 * 1024, "read on a worker, not on the body lane")
            let first = try client.request("POST", "/q?n=1", headers: E2E.tenantHeader("quiet"), body: Array(large.utf8))
            // On the lane, with the whole 100 ms budget, the json mocks do not match and the regexp one does.
            XCTAssertEqual(first.status, 200, first.text)
            XCTAssertEqual(first.text, "regexp")
            let laneAfterFirst = try E2E.metrics(client)["catbird_slow_matching_requests_total"] ?? 0
            XCTAssertEqual(laneAfterFirst, 1, "the large request's regexp started after the json comparisons had spent the slice")

            for _ in 0..<10 {
                let small = try client.request("POST", "/q?n=1", headers: E2E.tenantHeader("quiet"), body: Array("[]".utf8))
                XCTAssertEqual(small.text, "regexp")
            }
            XCTAssertEqual(
                try E2E.metrics(client)["catbird_slow_matching_requests_total"], laneAfterFirst,
                "q(?=\\?) was not marked slow: small requests are matched on the workers")
        }
    }
}
