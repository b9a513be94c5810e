import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/requests/wait` answers the first matching entry after `since` without
/// trying its pattern on the entries after that one (docs/protocol.md#waiting-for-a-request).
final class WaitFirstMatchTests: ServerTestCase {
    /// Regression (tester finding tester30c-F7, its exact input): tenant `jA` has `GET wildcard
    /// "/*"` and sent 3,000 requests `GET U<k>`, U = `/` + (3,000 a's + `b`) × 2 + 1,900 a's;
    /// a wait for `GET wildcard "*" + 100 a's + "b" + 1,900 a's + "?"` matches entries 1 to 10
    /// (k = 0...9). Its search read 1,000 matching ids per statement, so it tried the pattern
    /// on every entry before answering the first: 400 "too slow" after 2 s (1.5 s for 1,000
    /// entries). Now it reads one: entry 1 at once, and after `since` 5, entry 6.
    func testAWaitWhoseFirstEntryMatchesIsAnsweredWithoutTryingTheLaterOnes() throws {
        let tenant = E2E.tenantHeader("jA")
        try E2E.addMock(client, tenant: "jA", url: "/*", kind: "wildcard", body: "OK")
        let target = "/" + String(repeating: String(repeating: "a", count: 3_000) + "b", count: 2) + String(repeating: "a", count: 1_900)
        for k in 0..<3_000 {
            let answer = try client.request("GET", target + String(k), headers: tenant)
            guard answer.status == 200 else { return XCTFail("request \(k): \(answer.status) \(answer.text)") }
        }
        let pattern = #"{"method":"GET","url":{"kind":"wildcard","value":"*\#(String(repeating: "a", count: 100))b\#(String(repeating: "a", count: 1_900))?"}}"#
        let first = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":5}"#, headers: tenant)
        XCTAssertEqual(first.status, 200, String(first.text.prefix(300)))
        let firstID = try XCTUnwrap(first.object["id"] as? Int, String(first.text.prefix(300)))
        XCTAssertEqual(first.object["url"] as? String, target + "0")

        let later = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":5,"since":\#(firstID + 4)}"#, headers: tenant)
        XCTAssertEqual(later.status, 200, String(later.text.prefix(300)))
        XCTAssertEqual(later.object["id"] as? Int, firstID + 5, String(later.text.prefix(300)))
        XCTAssertEqual(later.object["url"] as? String, target + "5")
    }
}
