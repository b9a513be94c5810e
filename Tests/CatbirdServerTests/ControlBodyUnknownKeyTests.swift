import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// A key a control body's object does not take is refused with 400 naming it, where it is,
/// the key probably meant and the keys the object takes (docs/protocol.md#control-actions);
/// the keys the Catbird 0.11 client and our Swift client send are all taken.
final class ControlBodyUnknownKeyTests: XCTestCase {
    private static let pattern = #"{"method":"GET","url":{"kind":"wildcard","value":"*"}}"#

    /// Regression: each of these was answered 201, 204 or 200 and the misspelled key did
    /// nothing (`"timout":0` waited the default 5 s and answered 408; `"maxrows":5` returned
    /// every row). Nothing is stored by any of them.
    func testAMisspelledKeyIsRefusedNamingItAndTheKeyMeant() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(route: String, body: String, reason: String)] = [
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"metod":"GET","method":"GET","url":{"kind":"equal","value":"/a"}},"response":{"staus":404,"status":200}}"#,
             #"unknown key "metod" in 'pattern' (did you mean "method"?); the keys here are "method", "url", "headers" and "body""#),
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"}},"response":{"status":200,"dealy":3}}"#,
             #"unknown key "dealy" in 'response' (did you mean "delay"?); the keys here are "status", "headers", "body", "limit" and "delay""#),
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b","knd":"x"}},"response":{"status":200}}"#,
             #"unknown key "knd" in 'pattern.url' (did you mean "kind"?); the keys here are "kind" and "value""#),
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/b"},"body":{"kind":"jsonPath","value":"$.a","equalto":1}},"response":{"status":200}}"#,
             #"unknown key "equalto" in 'pattern.body' (did you mean "equalTo"?); the keys here are "kind", "value" and "equalTo""#),
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"},"headers":{"X-A":{"kind":"equal","value":"1","Value":"2"}}},"response":{"status":200}}"#,
             #"unknown key "Value" in 'pattern.headers.X-A' (did you mean "value"?); the keys here are "kind" and "value""#),
            // try9a F13: WireMock's names get ours.
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"}},"response":{"status":200,"fixedDelayMilliseconds":500}}"#,
             // try10a F1: with the unit (the value kept under "delay" made 300 ms a 300-second delay).
             #"unknown key "fixedDelayMilliseconds" in 'response' (did you mean "delay"?); the keys here are "status", "headers", "body", "limit" and "delay"; "#
                + #"'delay' is whole seconds, not milliseconds: WireMock's fixedDelayMilliseconds 300 is "delay": 0 (no delay) here, 2000 is "delay": 2"#),
            // try10a F1: a fractional delay names its unit.
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"}},"response":{"status":200,"delay":0.5}}"#,
             #"'response.delay' (0.5, in seconds) must be a whole number"#),
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"}},"response":{"status":200,"jsonBody":{"a":1},"times":1}}"#,
             #"unknown keys "jsonBody" (did you mean "body"?) and "times" (did you mean "limit"?) in 'response'; the keys here are "status", "headers", "body", "limit" and "delay""#),
            ("/catbird/api/mocks", #"{"type":"remove","pattrn":\#(Self.pattern)}"#,
             #"unknown key "pattrn" in the JSON body (did you mean "pattern"?); the keys here are "type" and "pattern""#),
            ("/catbird/api/mocks", #"{"type":"update","x":1,"pattern":\#(Self.pattern),"response":{"status":200}}"#,
             #"unknown key "x" in the JSON body; the keys here are "type", "pattern" and "response""#),
            ("/catbird/api/mocks", #"{"type":"upsert","x":1}"#,
             #"unknown key "x" in the JSON body; the keys here are "type", "pattern" and "response""#),
            ("/catbird/api/mocks", #"{"type":"remove","pattern":\#(Self.pattern),"response":{"status":200}}"#,
             #"the key "response" is not used by a "remove" action (its keys: "type" and "pattern")"#),
            ("/catbird/api/requests/find", #"{"pattern":\#(Self.pattern),"limt":5}"#,
             #"unknown key "limt" in the JSON body (did you mean "limit"?); the keys here are "pattern", "since", "before", "from", "until", "limit", "bodies" and "order""#),
            ("/catbird/api/requests/count", #"{"pattern":\#(Self.pattern),"limit":5}"#,
             #"unknown key "limit" in the JSON body; the keys here are "pattern""#),
            ("/catbird/api/requests/wait", #"{"pattern":\#(Self.pattern),"timout":0}"#,
             #"unknown key "timout" in the JSON body (did you mean "timeout"?); the keys here are "pattern", "timeout" and "since""#),
            // Regression (tester finding tester30a-F3): a count body written as the pattern itself.
            ("/catbird/api/requests/count", #"{"method":"GET","url":{"kind":"equal","value":"/login"}}"#,
             #"unknown keys "method" and "url" in the JSON body; the keys here are "pattern"; wrap the request pattern: {"pattern": {"method": …, "url": …}}"#),
            ("/catbird/api/sql", #"{"sql":"SELECT 1","maxrows":5}"#,
             #"unknown key "maxrows" in the JSON body (did you mean "maxRows"?); the keys here are "sql", "params" and "maxRows""#),
            ("/catbird/api/sql", #"{"sql":"SELECT 1","zz":1,"parms":[]}"#,
             #"unknown keys "parms" (did you mean "params"?) and "zz" in the JSON body; the keys here are "sql", "params" and "maxRows""#),
        ]
        for (route, body, reason) in cases {
            try harness.assertRejected("\(route) \(body)", 400, mentioning: []) { client in
                let answer = try client.json("POST", route, body)
                XCTAssertEqual(answer.object["reason"] as? String, reason, "\(route) \(body)")
                return answer
            }
        }
    }

    /// An unknown key is named before a missing one it was probably meant to be: `"metod"`
    /// alone says "did you mean", not "missing key 'pattern.method'".
    func testAnUnknownKeyIsNamedBeforeTheMissingKeyItStoodFor() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("metod alone", 400, mentioning: []) { client in
            let answer = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"metod":"GET","url":{"kind":"equal","value":"/a"}},"response":{"status":200}}"#)
            XCTAssertEqual(
                answer.object["reason"] as? String,
                #"unknown key "metod" in 'pattern' (did you mean "method"?); the keys here are "method", "url", "headers" and "body""#)
            return answer
        }
    }

    /// Regression (tester finding tester34a-F1, the finding's body): a `removeAll` with a
    /// `pattern` key got 400, while the contract keeps 0.11's rule that a `removeAll` ignores
    /// every key but `type` (../shared/spec/catbird-protocol.md §1.1). It now removes every mock
    /// of the tenant, as 0.11 does, and names the keys it ignored in `X-Catbird-Warning`; another
    /// tenant's mocks stay.
    func testARemoveAllIgnoresEveryOtherKeyAndSaysSo() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "a", url: "/x", body: "x")
        try E2E.addMock(client, tenant: "a", url: "/y", body: "y")
        try E2E.addMock(client, tenant: "b", url: "/x", body: "bx")
        let removed = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"removeAll","pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{}},"x":1}"#,
            headers: E2E.tenantHeader("a"))
        XCTAssertEqual(removed.status, 204, removed.text)
        XCTAssertEqual(
            removed.header("X-Catbird-Warning"),
            #"removeAll takes no key but "type": ignored "pattern", "x" (Catbird 0.11's rule); every mock of this tenant was "#
                + "removed (a remove with a pattern removes one mock)")
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("a")).status, 404)
        XCTAssertEqual(try client.request("GET", "/y", headers: E2E.tenantHeader("a")).status, 404)
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("b")).text, "bx")
        let plain = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: E2E.tenantHeader("b"))
        XCTAssertEqual(plain.status, 204)
        XCTAssertNil(plain.header("X-Catbird-Warning"))
        XCTAssertEqual(try client.request("GET", "/x", headers: E2E.tenantHeader("b")).status, 404)
    }

    /// Regression (tester finding tester36b-F1, the finding's keys): a key holding `"` (printable
    /// ASCII) was hidden as `"…"` like one outside ASCII, and that placeholder was itself the
    /// three UTF-8 bytes of U+2026 in a header value, read as `"â€¦"` by a client decoding it
    /// as ISO-8859-1. Every key is now shown JSON-escaped in ASCII; a long one is cut with `...`.
    func testARemoveAllsWarningNamesEveryKeyInASCII() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let long = String(repeating: "k", count: 300)
        for (key, shown) in [
            ("limit2", #""limit2""#), ("a b", #""a b""#), (#"a"b"#, #""a\"b""#), (#"a\b"#, #""a\\b""#), ("é", #""\u00e9""#),
            ("😀", #""\ud83d\ude00""#), ("\u{1}", #""\u0001""#), (long, "\"" + String(repeating: "k", count: 40) + #"..." (300 bytes)"#),
        ] {
            let body = try JSONSerialization.data(withJSONObject: ["type": "removeAll", key: 1])
            let removed = try client.json("POST", "/catbird/api/mocks", String(decoding: body, as: UTF8.self), headers: E2E.tenantHeader("rmall"))
            XCTAssertEqual(removed.status, 204, removed.text)
            let warning = try XCTUnwrap(removed.header("X-Catbird-Warning"))
            XCTAssertTrue(warning.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, warning)
            XCTAssertTrue(warning.hasPrefix("removeAll takes no key but \"type\": ignored \(shown) (Catbird 0.11's rule)"), "\(key): \(warning)")
        }
    }

    /// Every key our Swift client writes, each optional field set, is taken by its route (the
    /// Catbird 0.11 client's exact requests are replayed bit for bit by FixtureReplayTests).
    func testEveryKeyTheSwiftClientSendsIsTaken() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let pattern = RequestPattern(
            method: "POST", url: .wildcard("/k/*"), headers: ["X-A": PatternMatch.regexp("a")],
            body: .jsonPath("$.a", equalTo: .number(1)))
        func send(_ route: String, _ value: some Encodable) throws -> RawResponse {
            let body = try JSONEncoder().encode(value)
            return try client.request("POST", route, headers: [("Content-Type", "application/json")], body: Array(body))
        }
        let response = ResponseMock(status: 201, headers: ["X-B": "b"], body: Data("ok".utf8), limit: 2, delay: 0)
        XCTAssertEqual(try send("/catbird/api/mocks", CatbirdAction.update(pattern, response)).status, 201)
        XCTAssertEqual(try client.request("POST", "/k/1", headers: [("X-A", "a")], body: Array(#"{"a":1}"#.utf8)).text, "ok")
        XCTAssertEqual(try send("/catbird/api/mocks", CatbirdAction.remove(pattern)).status, 204)
        XCTAssertEqual(try send("/catbird/api/mocks", CatbirdAction.removeAll).status, 204)
        let count = try send("/catbird/api/requests/count", CatbirdCountRequest(pattern: pattern))
        XCTAssertEqual(count.object["count"] as? Int, 1, count.text)
        let find = try send(
            "/catbird/api/requests/find",
            CatbirdFindRequest(
                pattern: pattern, since: 0, before: 1000, from: "2000-01-01T00:00:00.000Z", until: "2999-01-01T00:00:00.000Z",
                limit: 10, bodies: false))
        XCTAssertEqual((find.object["requests"] as? [Any])?.count, 1, find.text)
        let wait = try send("/catbird/api/requests/wait", CatbirdWaitRequest(pattern: pattern, timeout: 1, since: 0))
        XCTAssertEqual(wait.status, 200, wait.text)
        let sql = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?","params":[1],"maxRows":1}"#)
        XCTAssertEqual(sql.status, 200, sql.text)
    }
}
