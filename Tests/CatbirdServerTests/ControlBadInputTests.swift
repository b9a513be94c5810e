import CatbirdTestSupport
import Foundation
import XCTest

/// Bad input to the control and admin routes: each gets its own 4xx with a JSON error body
/// (`{"error":true,"reason":"…"}`, `Content-Type: application/json; charset=utf-8`, docs/protocol.md#errors)
/// and changes nothing stored. Every test starts a fresh server holding one known mock; after
/// each bad request the mocks listing, the tenants listing and the journal row count must be
/// exactly as before, and the known mock must still serve (``ControlBadInputHarness``).
///
/// Control actions here; the transport (content types, sizes) in `+Transport`, the SQL route in
/// `+SQL`, the journal, count and routing in `+Routes`.
final class ControlBadInputTests: XCTestCase {
    // MARK: - Control actions: malformed bodies

    func testMalformedJSONIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("truncated JSON", 400, mentioning: ["JSON"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"update","#)
        }
        try harness.assertRejected("not JSON at all", 400, mentioning: ["JSON"]) {
            try $0.json("POST", "/catbird/api/mocks", "update please")
        }
        try harness.assertRejected("empty body", 400, mentioning: ["JSON"]) {
            try $0.json("POST", "/catbird/api/mocks", "")
        }
        let notUTF8 = Array(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/o"#.utf8)
            + [0xFF, 0xFE]
            + Array(#""},"headers":{}},"response":{"status":200,"headers":{}}}"#.utf8)
        try harness.assertRejected("invalid UTF-8 in a string", 400, mentioning: []) {
            try $0.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: notUTF8)
        }
        let depth = 100_000
        let nested = #"{"type":"update","pattern":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        try harness.assertRejected("JSON nested \(depth) deep", 400, mentioning: []) {
            try $0.json("POST", "/catbird/api/mocks", nested)
        }
    }

    func testUnknownTypeIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("type upsert", 400, mentioning: ["upsert"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"upsert"}"#)
        }
        try harness.assertRejected("type missing", 400, mentioning: ["type"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"pattern":\#(ControlBadInputHarness.otherPattern),"response":{"status":200,"headers":{}}}"#)
        }
    }

    /// A missing field, or one of the wrong type, is named in the reason. A whole-number field
    /// given a fraction is valid JSON of the wrong type: named too, not called malformed JSON.
    func testMissingOrMistypedFieldsAreRejectedNamingTheField() throws {
        let harness = try ControlBadInputHarness()
        let update = ControlBadInputHarness.update(response:)
        let other = ControlBadInputHarness.otherPattern
        let cases: [(String, String, String)] = [
            ("update without pattern", #"{"type":"update","response":{"status":200,"headers":{}}}"#, "pattern"),
            ("update without response", #"{"type":"update","pattern":\#(other)}"#, "response"),
            ("update without pattern.url",
             #"{"type":"update","pattern":{"method":"GET","headers":{}},"response":{"status":200,"headers":{}}}"#, "url"),
            ("remove without pattern", #"{"type":"remove"}"#, "pattern"),
            ("status as text", update(#"{"status":"200","headers":{}}"#), "status"),
            ("status missing", update(#"{"headers":{}}"#), "status"),
            ("status 200.5", update(#"{"status":200.5,"headers":{}}"#), "status"),
            ("limit as text", update(#"{"status":200,"headers":{},"limit":"2"}"#), "limit"),
            ("delay as text", update(#"{"status":200,"headers":{},"delay":"1"}"#), "delay"),
            ("body as a number", update(#"{"status":200,"headers":{},"body":5}"#), "body"),
            ("response headers as an array", update(#"{"status":200,"headers":["a"]}"#), "headers"),
            ("response header value as a number", update(#"{"status":200,"headers":{"X-A":1}}"#), "headers"),
            ("pattern method as a number",
             #"{"type":"update","pattern":{"method":1,"url":{"kind":"equal","value":"/other"},"headers":{}},"response":{"status":200,"headers":{}}}"#,
             "method"),
            ("pattern url as text",
             #"{"type":"update","pattern":{"method":"GET","url":"/other","headers":{}},"response":{"status":200,"headers":{}}}"#,
             "url"),
            ("pattern url without value",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal"},"headers":{}},"response":{"status":200,"headers":{}}}"#,
             "value"),
            ("type as a number", #"{"type":1}"#, "type"),
            ("a JSON array", "[]", "JSON"),
            ("JSON null", "null", "JSON"),
        ]
        for (label, body, problem) in cases {
            try harness.assertRejected(label, 400, mentioning: [problem]) {
                try $0.json("POST", "/catbird/api/mocks", body)
            }
        }
    }

    /// Refused from the default tenant and from a new parallel id, which must not create a
    /// tenant.
    func testInvalidBase64BodyIsRejectedAndCreatesNoTenant() throws {
        let harness = try ControlBadInputHarness()
        let action = ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"body":"%%%"}"#)
        try harness.assertRejected("body %%%", 400, mentioning: ["base64"]) {
            try $0.json("POST", "/catbird/api/mocks", action)
        }
        try harness.assertRejected("body %%% from tenant ghost", 400, mentioning: ["base64"]) {
            try $0.json("POST", "/catbird/api/mocks", action, headers: [("X-Catbird-Parallel-Id", "ghost")])
        }
        let ghost = try FixtureTestSupport.listMocks(harness.client, tenant: "ghost")
        XCTAssertEqual((ghost.object["mocks"] as? [Any])?.count, 0, "tenant ghost has no mocks")
    }

    /// Tester finding T13-F3, the exact bodies: padding out of place was taken (201) and the
    /// mock served bytes nobody wrote (`"===="` a NUL byte, `"AB=C"` `00 02`, `"QUJD===="` `ABC`).
    func testBase64WithPaddingOutOfPlaceIsRejected() throws {
        let harness = try ControlBadInputHarness()
        for body in ["====", "========", "AB=C", "QUJD===="] {
            let action = ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"body":"\#(body)"}"#)
            try harness.assertRejected("body \(body)", 400, mentioning: ["base64"]) {
                try $0.json("POST", "/catbird/api/mocks", action)
            }
        }
    }

    /// A regular expression that does not compile, or a wildcard whose translation does not
    /// (docs/matching.md#wildcard: `{` → `(` unclosed, `[` unclosed), in the url or a header
    /// pattern; and a kind that does not exist.
    func testPatternsThatDoNotCompileAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(kind: String, value: String, mentioning: [String])] = [
            ("regexp", "(unclosed", ["regular expression", "regexp", "(unclosed"]),
            ("wildcard", "/a{b", ["regular expression", "regexp", "wildcard"]),
            ("wildcard", "/a[b", ["regular expression", "regexp", "wildcard"]),
        ]
        for (kind, value, mentioning) in cases {
            try harness.assertRejected("\(kind) url \(value)", 400, mentioning: mentioning) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"GET","url":{"kind":"\#(kind)","value":"\#(value)"},"headers":{}},
                     "response":{"status":200,"headers":{}}}
                    """#)
            }
            try harness.assertRejected("\(kind) header \(value)", 400, mentioning: mentioning) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/other"},
                     "headers":{"X-Token":{"kind":"\#(kind)","value":"\#(value)"}}},"response":{"status":200,"headers":{}}}
                    """#)
            }
        }
        try harness.assertRejected("kind glob", 400, mentioning: ["glob"]) {
            try $0.json("POST", "/catbird/api/mocks", #"""
                {"type":"update","pattern":{"method":"GET","url":{"kind":"glob","value":"/other*"},"headers":{}},
                 "response":{"status":200,"headers":{}}}
                """#)
        }
    }

    /// Regression: header patterns no request could match were stored (201): an empty name, a
    /// name that is not a token, a value holding \u0000 (a url with \u0000 was already a 400).
    /// Each is now a 400 naming the header, and nothing is stored; a regexp may name a NUL.
    func testHeaderPatternsThatCouldNeverMatchAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(headers: String, mentioning: [String])] = [
            (#"{"":{"kind":"equal","value":"x"}}"#, ["'pattern.headers' name \"\"", "not an HTTP header field name"]),
            (#"{"Bad Name":{"kind":"equal","value":"x"}}"#, ["\"Bad Name\"", "not an HTTP header field name"]),
            (#"{"X-A:":{"kind":"equal","value":"x"}}"#, ["\"X-A:\"", "not an HTTP header field name"]),
            (#"{"X-Token":{"kind":"equal","value":"a\u0000b"}}"#, ["'pattern.headers.X-Token.value'", "NUL"]),
            (#"{"X-Token":{"kind":"wildcard","value":"a*\r\nb"}}"#, ["'pattern.headers.X-Token.value'", "LF"]),
        ]
        for (headers, mentioning) in cases {
            try harness.assertRejected("headers \(headers)", 400, mentioning: mentioning) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/h"},"headers":\#(headers)},
                     "response":{"status":200,"headers":{}}}
                    """#)
            }
        }
        let regexp = try harness.client.json("POST", "/catbird/api/mocks", #"""
            {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/h"},
             "headers":{"X-Token":{"kind":"regexp","value":"^[^\u0000]+$"}}},"response":{"status":200,"headers":{}}}
            """#)
        XCTAssertEqual(regexp.status, 201, regexp.text)
        XCTAssertEqual(try harness.client.request("GET", "/h", headers: [("X-Token", "abc")]).status, 200)
    }

    // MARK: - Control actions: responses the server could not send

    func testStatusOutOfRangeIsRejected() throws {
        let harness = try ControlBadInputHarness()
        for status in [99, 600] {
            try harness.assertRejected("status \(status)", 400, mentioning: ["status"]) {
                try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":\#(status),"headers":{}}"#))
            }
        }
    }

    func testBadResponseHeadersAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let headers = [
            ("header name with a space", #"{"X Bad":"1"}"#), ("header value with CR LF", #"{"X-Ok":"a\r\nX-Injected: 1"}"#),
            ("header value with LF", #"{"X-Ok":"a\nb"}"#), ("header value with CR", #"{"X-Ok":"a\rb"}"#),
        ]
        for (label, fields) in headers {
            try harness.assertRejected(label, 400, mentioning: ["header"]) {
                try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":\#(fields)}"#))
            }
        }
    }

    func testNegativeDelayIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("delay -1", 400, mentioning: ["delay"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"delay":-1}"#))
        }
    }

    /// A delay too long to ever elapse (9223372037 s, about 292 years): the server may refuse it
    /// (400 naming `delay`) or accept it and keep the request waiting, but it must keep running.
    /// (Regression test: the server process died of an arithmetic overflow when serving it.)
    func testHugeDelayDoesNotCrashTheServer() throws {
        let harness = try ControlBadInputHarness()
        let added = try harness.client.json("POST", "/catbird/api/mocks", #"""
            {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/slow"},"headers":{}},
             "response":{"status":200,"headers":{},"delay":9223372037}}
            """#)
        if added.status == 201 {
            let slow = try RawHTTPClient(port: harness.server.port, timeoutSeconds: 2)
            XCTAssertThrowsError(try slow.request("GET", "/slow"), "a 292-year delay cannot be over within 2 s")
        } else {
            XCTAssertEqual(added.status, 400, "refused delay (body: \(added.text))")
            XCTAssertEqual(added.header("Content-Type"), "application/json; charset=utf-8")
            XCTAssertTrue((added.object["reason"] as? String ?? "").contains("delay"), "reason names delay: \(added.text)")
        }
        let client = try harness.server.client()
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, "the server must still answer")
        XCTAssertEqual(try client.request("GET", "/known").text, "known", "the known mock must still serve")
    }

    // MARK: - Positive control

    /// `removeAll` with its one key in any spelling of JSON: escapes, whitespace (an unknown key
    /// is refused: ControlBodyUnknownKeyTests).
    func testRemoveAllEmptiesTheTenant() throws {
        let harness = try ControlBadInputHarness()
        let answer = try harness.client.json("POST", "/catbird/api/mocks", "{ \"t\\u0079pe\" :\n\"removeAll\" }")
        XCTAssertEqual(answer.status, 204, "removeAll (body: \(answer.text))")
        XCTAssertEqual(answer.body.count, 0)
        let mocks = try FixtureTestSupport.listMocks(harness.client, tenant: "").object["mocks"] as? [[String: Any]]
        XCTAssertEqual(mocks?.count, 0, "removeAll must empty the default tenant")
        XCTAssertEqual(try harness.client.request("GET", "/known").status, 404)
    }
}
