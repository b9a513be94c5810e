import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR entry's `request.cookies` and `response.cookies` (docs/protocol.md#har-export): each
/// pair read as browsers read it.
final class HARCookiesTests: ServerTestCase {
    /// Regression (tester finding tester31a-F1, its exact input): a mock answering
    /// `Set-Cookie: sid = abc ; Path=/` and `set-cookie: novalue` to a request with
    /// `Cookie: a = 1;b=2` was exported as cookies `"a "`=`" 1"`, `"sid "`=`" abc"` and one
    /// named `novalue`. RFC 6265bis §5.6: the whitespace around a name and a value is not
    /// theirs, and a pair without `=` is a cookie with an empty name and that value.
    func testCookieNamesAndValuesAreTrimmedAndAPairWithoutEqualsHasAnEmptyName() throws {
        try E2E.addMock(
            client, tenant: "ck", url: "/ck", responseHeaders: ["Set-Cookie": "sid = abc ; Path=/", "set-cookie": "novalue"], body: "ok")
        let answer = try client.request("GET", "/ck", headers: E2E.tenantHeader("ck") + [("Cookie", "a = 1;b=2")])
        XCTAssertEqual(answer.text, "ok")
        _ = try E2E.journal(client, tenant: "ck", once: 1)
        let har = try client.request("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader("ck"))
        XCTAssertEqual(har.status, 200, har.text)
        let entry = try XCTUnwrap(((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first, har.text)
        let sent = (entry["request"] as? [String: Any])?["cookies"] as? [[String: String]]
        XCTAssertEqual(sent, [["name": "a", "value": "1"], ["name": "b", "value": "2"]])
        let received = Set(((entry["response"] as? [String: Any])?["cookies"] as? [[String: String]] ?? []).map { "\($0["name"] ?? "?")=\($0["value"] ?? "?")" })
        XCTAssertEqual(received, ["sid=abc", "=novalue"])
    }
}
