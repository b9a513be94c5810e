import CatbirdTestSupport
import Foundation
import XCTest

/// tester39a-F9: a header pattern named `X-\u212Aey` (KELVIN SIGN, which reads as `K`) was
/// counted as `X-Key` by count, find and wait, and `update` refused it quoting the name raw,
/// `"X-Key" is not an HTTP header field name`, which reads like a good name. Count and the
/// others now match names byte for byte (ASCII case folded only), and the refusal names the
/// character at fault.
final class HeaderNameLookAlikeTests: XCTestCase {
    private static let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/hk"},"headers":{"X-\u212aey":{"kind":"equal","value":"v"}}}"#

    func testALookAlikeHeaderNameCountsNothingAndItsRefusalNamesTheCharacter() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = [("X-Catbird-Parallel-Id", "hk2")]
        XCTAssertEqual(try client.request("GET", "/hk", headers: tenant + [("X-Key", "v")]).status, 404)

        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(Self.pattern)}"#, headers: tenant)
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, "X-\\u212Aey is not X-Key: \(count.text)")
        let plain = try client.json(
            "POST", "/catbird/api/requests/count",
            #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/hk"},"headers":{"x-key":{"kind":"equal","value":"v"}}}}"#,
            headers: tenant)
        XCTAssertEqual(JSONNumber.int(plain.object["count"]), 1, "the request was journaled: \(plain.text)")

        let update = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(Self.pattern),"response":{"status":200}}"#, headers: tenant)
        E2E.assertError(update, status: 400, reasonContains: #"'pattern.headers' name "X-Key" (it holds U+212A) is not an HTTP header field name"#)
        let method = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET POST","url":{"kind":"equal","value":"/hk"}},"response":{"status":200}}"#,
            headers: tenant)
        E2E.assertError(method, status: 400, reasonContains: #"not "GET POST" (it holds U+0020)"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: "hk2").count, 0, "nothing stored")
    }
}
