import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester20b-F11: a count, find or wait whose pattern no request can match
/// (method `ANY`, `get`, `*`; an equal url without its `/`) answered 0, `[]` or a 408 without a
/// word, while `update` warns about the same pattern. A WireMock `anyRequestedFor` translated
/// to `"method":"ANY"` then passed `assertRequested(times: 0)` for the wrong reason. Now the
/// answer's `warnings` (the 408's reason) say why, as `update`'s 201 does.
final class NeverMatchingQueryTests: XCTestCase {
    func testCountFindAndWaitSayWhenTheirPatternCanNeverMatch() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = E2E.tenantHeader("hb")
        for path in ["/a", "/b"] { _ = try client.request("GET", path, headers: tenant) }
        let cases: [(String, String)] = [
            (#"{"method":"ANY","url":{"kind":"wildcard","value":"*"}}"#, #"'pattern.method' "ANY" is compared exactly"#),
            (#"{"method":"get","url":{"kind":"wildcard","value":"*"}}"#, #"clients send "GET", so no usual client's request can match this pattern"#),
            (#"{"method":"*","url":{"kind":"wildcard","value":"*"}}"#, #"'pattern.method' "*" is compared exactly"#),
            (#"{"method":"GET","url":{"kind":"equal","value":"x/badhdr"}}"#, "no request can match this pattern; did you mean \"/x/badhdr\"?"),
        ]
        for (pattern, warning) in cases {
            let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
            XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, count.text)
            XCTAssertTrue((count.object["warnings"] as? [String] ?? []).contains { $0.contains(warning) }, "count \(pattern): \(count.text)")
            let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
            XCTAssertEqual((find.object["requests"] as? [Any])?.count, 0, find.text)
            XCTAssertTrue((find.object["warnings"] as? [String] ?? []).contains { $0.contains(warning) }, "find \(pattern): \(find.text)")
            let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0}"#, headers: tenant)
            E2E.assertError(wait, status: 408, reasonContains: warning)
        }
        // A pattern that can match says nothing more.
        let good = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"*"}}}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(good.object["count"]), 2, good.text)
        XCTAssertNil(good.object["warnings"], good.text)
        let found = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/a"}}}"#, headers: tenant)
        XCTAssertEqual((found.object["requests"] as? [Any])?.count, 1, found.text)
        XCTAssertNil(found.object["warnings"], found.text)
    }

    /// Regression (tester finding tester61a-F2, its requests): a count, find or wait whose
    /// wildcard or regexp url holds "é" answered 0, `[]` or a 408 without a word, while the app
    /// sent `/menu/caf%C3%A9/x`; `update` warned of the same url. They say it now too.
    func testCountFindAndWaitSayWhenTheirURLHoldsCharactersPastASCII() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = E2E.tenantHeader("na")
        _ = try client.request("GET", "/menu/caf%C3%A9/x", headers: tenant)
        let warning = "holds \"é\" (%C3%A9), which clients (URLSession, OkHttp, browsers) send percent-encoded as its UTF-8 bytes"
        let count = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"/menu/café*"}}}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, count.text)
        let said = try XCTUnwrap((count.object["warnings"] as? [String])?.first, count.text)
        XCTAssertTrue(said.contains(warning) && said.contains("where this pattern needs such a character") && said.hasSuffix(#"write it "/menu/caf%C3%A9*""#), said)
        let encoded = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"/menu/caf%C3%A9*"}}}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(encoded.object["count"]), 1, encoded.text)
        XCTAssertNil(encoded.object["warnings"], encoded.text)
        let find = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"^/re/café$"}}}"#, headers: tenant)
        XCTAssertEqual((find.object["requests"] as? [Any])?.count, 0, find.text)
        XCTAssertTrue((find.object["warnings"] as? [String] ?? []).contains { $0.contains(warning) }, find.text)
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"^/menu/café"}},"timeout":1}"#,
            headers: tenant)
        E2E.assertError(wait, status: 408, reasonContains: warning)
    }
}
