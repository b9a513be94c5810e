import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A `jsonPath` or `json` body pattern that no body could match as meant is refused when sent
/// (`update`, count), saying where it is malformed; mocks stored before these checks still load
/// and answer as before (docs/matching.md#body-matchers).
final class BodyPatternValueRefusalTests: ServerTestCase {
    private func update(_ body: String, url: String = "/p") throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"\#(url)"},"headers":{},"body":\#(body)},"#
                + #""response":{"status":200,"headers":{},"body":"bWF0Y2hlZA=="}}"#)
    }

    /// Regression (tester finding try10a F10), the exact input: `$.a[*]` got 201 and then never
    /// matched `{"a":[1]}` (404). It is a 400 now, on update and on count, naming the step; a
    /// path malformed past several good steps too.
    func testAJSONPathMalformedAfterItsFirstStepIsRefusedWhereItIsMalformed() throws {
        let refused = try update(#"{"kind":"jsonPath","value":"$.a[*]"}"#)
        E2E.assertError(refused, status: 400, reasonContains: #"'pattern.body.value' "$.a[*]" is not a SQLite JSON path: malformed at byte offset 3 (at "[*]")"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")

        let counted = try client.json(
            "POST", "/catbird/api/requests/count",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/p"},"headers":{},"body":{"kind":"jsonPath","value":"$.a.b..c"}}}"#)
        E2E.assertError(counted, status: 400, reasonContains: #"malformed at byte offset 5 (at "..c"): a '.' without a member name"#)

        XCTAssertEqual(try update(#"{"kind":"jsonPath","value":"$.a[#-1]"}"#).status, 201)
        XCTAssertEqual(try client.request("POST", "/p", body: Array(#"{"a":[1]}"#.utf8)).text, "matched")
    }

    /// tester48b-F5(b), its call: a count's body pattern error named the field `'body.value'`
    /// where every other field of the same call is named from `pattern.`; update, count, find
    /// and wait all name it `'pattern.body.value'` (and `'pattern.body.equalTo'`) now.
    func testABodyPatternErrorNamesTheFieldFromPattern() throws {
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/x"},"body":{"kind":"jsonPath","value":"$..id"}}"#
        let calls = [("/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#),
                     ("/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#),
                     ("/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#),
                     ("/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0}"#)]
        for (route, body) in calls {
            let refused = try client.json("POST", route, body)
            E2E.assertError(refused, status: 400, reasonContains: #"'pattern.body.value' "$..id" is not a SQLite JSON path"#)
        }
        let equalTo = try client.json("POST", "/catbird/api/requests/count",
                                      #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/x"},"body":{"kind":"contains","value":"a","equalTo":1}}}"#)
        E2E.assertError(equalTo, status: 400, reasonContains: #"'pattern.body.equalTo' is only for the kind "jsonPath""#)
    }

    /// Regression (tester finding try10a F12), the exact input: the `json` value `{"a":1,}` was
    /// read by a lenient parser and accepted, and a request body `{"a":1,}` matched the `json`
    /// pattern `{"a":1}` though `jsonPath` (SQLite) called that body malformed. The value is a
    /// 400 naming its position now (update and count), and such a body is not JSON for `json`
    /// either: it misses, and its near miss says the body is not JSON.
    func testAJSONValueWithATrailingCommaIsRefusedAndSuchABodyIsNotJSON() throws {
        let refused = try update(#"{"kind":"json","value":"{\"a\":1,}"}"#)
        E2E.assertError(
            refused, status: 400,
            reasonContains: #"'pattern.body.value' must be JSON text (RFC 8259) for the kind "json", as a request body must be to "#
                + "match it: invalid JSON at line 1, column 7 (byte offset 6): a trailing comma before '}'")
        let counted = try client.json(
            "POST", "/catbird/api/requests/count",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"headers":{},"body":{"kind":"json","value":"[1,]"}}}"#)
        E2E.assertError(counted, status: 400, reasonContains: "byte offset 2")
        let waited = try client.json(
            "POST", "/catbird/api/requests/wait",
            #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"headers":{},"body":{"kind":"json","value":"{\"a\":1,}"}},"timeout":1}"#)
        E2E.assertError(waited, status: 400, reasonContains: "a trailing comma before '}'")

        XCTAssertEqual(try update(#"{"kind":"json","value":"{\"a\":1}"}"#, url: "/j").status, 201)
        XCTAssertEqual(try client.request("POST", "/j", body: Array(#"{"a":1}"#.utf8)).status, 200)
        let trailing = try client.request("POST", "/j", body: Array(#"{"a":1,}"#.utf8))
        XCTAssertEqual(trailing.status, 404, trailing.text)
        XCTAssertTrue((trailing.object["reason"] as? String ?? "").contains("json: the body is not JSON"), trailing.text)
    }

    /// A `json` value that is cut short is called "the value" in the reason, not "the body"
    /// (the reason is about the pattern's value; the request body is another text): the
    /// exact values `{"a":"x` and `[1,` said "the body ends inside it" and "found the end of the body".
    func testAJSONValueCutShortIsNamedTheValue() throws {
        E2E.assertError(
            try update(#"{"kind":"json","value":"{\"a\":\"x"}"#), status: 400,
            reasonContains: "invalid JSON at line 1, column 6 (byte offset 5): a string that is never closed: the value ends inside it")
        E2E.assertError(
            try update(#"{"kind":"json","value":"[1,"}"#), status: 400,
            reasonContains: "(byte offset 3): expected a value (an object, array, string, number, true, false or null), found the end of the value")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 0, "nothing stored")
    }

    /// Mocks stored before the checks (written straight into the `mocks` table, as an earlier
    /// version stored them) still load at start-up, are listed, and answer as they did: the
    /// `json` value `{"a":1,}` read as `{"a":1}`; the path `$.a[*]` never matching past `a`.
    func testMocksStoredBeforeTheChecksStillLoad() throws {
        server.stop()
        do {
            let database = try Database(path: server.databasePath)
            for (position, url, pattern) in [
                (1, "/stored-json", #"{"kind":"json","value":"{\"a\":1,}"}"#), (2, "/stored-path", #"{"kind":"jsonPath","value":"$.a[*]"}"#),
            ] {
                try database.run("""
                    INSERT INTO mocks (tenant, position, method, url_kind, url_value, header_patterns, status, response_headers,
                                       response_body, hits, created_at, body_pattern)
                    VALUES ('', ?, 'POST', 'equal', ?, '{}', 200, '{}', CAST('stored' AS BLOB), 0, '2026-12-01T00:00:00.000Z', ?)
                    """, [.integer(Int64(position)), .text(url), .text(pattern)])
            }
        }
        try server.restart()
        let client = try server.client()
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 2)
        XCTAssertEqual(try client.request("POST", "/stored-json", body: Array(#"{"a":1}"#.utf8)).text, "stored")
        XCTAssertEqual(try client.request("POST", "/stored-path", body: Array(#"{"a":[1]}"#.utf8)).status, 404)
        XCTAssertEqual(try client.request("POST", "/stored-path", body: Array(#"{"b":1}"#.utf8)).status, 404)
    }
}
