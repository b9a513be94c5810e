import CatbirdTestSupport
import Foundation
import XCTest

/// Bad input to the control and admin routes: each gets its own 4xx with a JSON error body
/// (`{"error":true,"reason":"…"}`, `Content-Type: application/json; charset=utf-8`, docs/protocol.md#errors)
/// and changes nothing stored. Every test starts a fresh server holding one known mock; after
/// each bad request the mocks listing, the tenants listing and the journal row count must be
/// exactly as before, and the known mock must still serve.
final class ControlBadInputTests: XCTestCase {
    // MARK: - Control actions: malformed or incomplete

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

    func testMissingRequiredFieldsAreRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("update without pattern", 400, mentioning: ["pattern"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"update","response":{"status":200,"headers":{}}}"#)
        }
        try harness.assertRejected("update without response", 400, mentioning: ["response"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(ControlBadInputHarness.otherPattern)}"#)
        }
        try harness.assertRejected("update without pattern.url", 400, mentioning: ["url"]) {
            try $0.json("POST", "/catbird/api/mocks", #"""
                {"type":"update","pattern":{"method":"GET","headers":{}},"response":{"status":200,"headers":{}}}
                """#)
        }
        try harness.assertRejected("remove without pattern", 400, mentioning: ["pattern"]) {
            try $0.json("POST", "/catbird/api/mocks", #"{"type":"remove"}"#)
        }
    }

    func testInvalidBase64BodyIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("body %%%", 400, mentioning: ["base64"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"body":"%%%"}"#))
        }
    }

    func testInvalidRegularExpressionsAreRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("regexp url (unclosed", 400, mentioning: ["regular expression", "regexp", "(unclosed"]) {
            try $0.json("POST", "/catbird/api/mocks", #"""
                {"type":"update","pattern":{"method":"GET","url":{"kind":"regexp","value":"(unclosed"},"headers":{}},
                 "response":{"status":200,"headers":{}}}
                """#)
        }
        try harness.assertRejected("regexp header (unclosed", 400, mentioning: ["regular expression", "regexp", "(unclosed"]) {
            try $0.json("POST", "/catbird/api/mocks", #"""
                {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/other"},
                 "headers":{"X-Token":{"kind":"regexp","value":"(unclosed"}}},"response":{"status":200,"headers":{}}}
                """#)
        }
    }

    func testInvalidPatternKindIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("kind glob", 400, mentioning: ["glob"]) {
            try $0.json("POST", "/catbird/api/mocks", #"""
                {"type":"update","pattern":{"method":"GET","url":{"kind":"glob","value":"/other*"},"headers":{}},
                 "response":{"status":200,"headers":{}}}
                """#)
        }
    }

    // MARK: - Control actions: transport

    func testNonJSONContentTypeIsUnsupported() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#).utf8)
        try harness.assertRejected("Content-Type text/plain", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "text/plain")], body: body)
        }
        try harness.assertRejected("no Content-Type", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/mocks", body: body)
        }
    }

    func testOversizedBodyIsTooLarge() throws {
        let harness = try ControlBadInputHarness(configure: { $0.maxBodySize = 1024 })
        // A valid update action for another URL, padded (extra keys are ignored) to 2000 bytes,
        // so a server that ignored the limit would visibly store it.
        let start = #"{"type":"update","pattern":\#(ControlBadInputHarness.otherPattern),"response":{"status":200,"headers":{}},"padding":""#
        let end = #""}"#
        let text = start + String(repeating: "x", count: 2000 - start.utf8.count - end.utf8.count) + end
        XCTAssertEqual(text.utf8.count, 2000)
        try harness.assertRejected("2000-byte body over a 1024-byte limit", 413, mentioning: ["1024", "large", "limit"], reconnectAfter: true) {
            try $0.json("POST", "/catbird/api/mocks", text)
        }
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
        try harness.assertRejected("header name with a space", 400, mentioning: ["header"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{"X Bad":"1"}}"#))
        }
        try harness.assertRejected("header value with CR LF", 400, mentioning: ["header"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{"X-Ok":"a\r\nX-Injected: 1"}}"#))
        }
        try harness.assertRejected("header value with LF", 400, mentioning: ["header"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{"X-Ok":"a\nb"}}"#))
        }
        try harness.assertRejected("header value with CR", 400, mentioning: ["header"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{"X-Ok":"a\rb"}}"#))
        }
    }

    func testNegativeDelayIsRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("delay -1", 400, mentioning: ["delay"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"delay":-1}"#))
        }
    }

    // MARK: - SQL route

    func testSQLWriteStatementsAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let statements = [
            "DELETE FROM mocks",
            "DROP TABLE requests",
            "INSERT INTO tenants VALUES('x','a','b')",
            "SELECT 1; DELETE FROM mocks",
            "PRAGMA journal_mode=DELETE",
            "ATTACH DATABASE '/tmp/x.db' AS x",
        ]
        for sql in statements {
            try harness.assertRejected("SQL \(sql)", 400, mentioning: ["read-only", "read only", "statement"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            }
        }
    }

    func testSQLAttachCreatesNoFile() throws {
        let harness = try ControlBadInputHarness()
        let path = harness.server.directory.appendingPathComponent("attached.db").path
        try harness.assertRejected("SQL ATTACH in the server's folder", 400, mentioning: ["read-only", "read only", "statement"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical("ATTACH DATABASE '\(path)' AS x"))}"#)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a refused ATTACH must not create \(path)")
    }

    func testSQLBadBodiesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("SQL body not JSON", 400, mentioning: ["JSON", "sql"]) {
            try $0.json("POST", "/catbird/api/sql", "SELECT 1")
        }
        try harness.assertRejected("SQL body text/plain", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/sql", headers: [("Content-Type", "text/plain")], body: Array(#"{"sql":"SELECT 1"}"#.utf8))
        }
        try harness.assertRejected("SQL param is an object", 400, mentioning: ["param"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?","params":[{"a":1}]}"#)
        }
        try harness.assertRejected("SQL maxRows 0", 400, mentioning: ["maxRows"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":"SELECT 1","maxRows":0}"#)
        }
    }

    // MARK: - Routes and journal queries

    func testUnknownRouteIsNotFound() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("GET /catbird/api/nope", 404, mentioning: []) {
            try $0.request("GET", "/catbird/api/nope")
        }
        try harness.assertRejected("POST /catbird/api/nope", 404, mentioning: []) {
            try $0.json("POST", "/catbird/api/nope", ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#))
        }
    }

    func testWrongMethodOnKnownRouteIsNotAllowed() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("PUT /catbird/api/mocks", 405, mentioning: []) {
            try $0.json("PUT", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#))
        }
        try harness.assertRejected("PATCH /catbird/api/mocks", 405, mentioning: []) {
            try $0.request("PATCH", "/catbird/api/mocks")
        }
    }

    func testBadJournalQueriesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        for (query, problem) in [("limit=abc", "limit"), ("answeredBy=robot", "answeredBy"), ("since=-1", "since")] {
            try harness.assertRejected("GET /catbird/api/requests?\(query)", 400, mentioning: [problem]) {
                try $0.request("GET", "/catbird/api/requests?\(query)")
            }
        }
    }

    // MARK: - Positive control

    func testRemoveAllIgnoresExtraKeys() throws {
        let harness = try ControlBadInputHarness()
        let answer = try harness.client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll","extra":1}"#)
        XCTAssertEqual(answer.status, 204, "removeAll with an extra key (body: \(answer.text))")
        XCTAssertEqual(answer.body.count, 0)
        let mocks = try FixtureTestSupport.listMocks(harness.client, tenant: "").object["mocks"] as? [[String: Any]]
        XCTAssertEqual(mocks?.count, 0, "removeAll must empty the default tenant")
        XCTAssertEqual(try harness.client.request("GET", "/known").status, 404)
    }
}
