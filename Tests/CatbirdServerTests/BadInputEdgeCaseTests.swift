import CatbirdTestSupport
import Foundation
import XCTest

/// More bad input beyond ``ControlBadInputTests``' list, same rules: each one gets a JSON error
/// with its own 4xx and leaves the stored mocks, tenants and journal exactly as they were.
final class BadInputEdgeCaseTests: XCTestCase {
    // MARK: - Control actions

    /// A wildcard is translated to a regular expression (docs/matching.md#wildcard); one whose translation does
    /// not compile (`{` → `(` unclosed, `[` unclosed) is an invalid regular expression → 400.
    func testWildcardsThatDoNotCompileAreRejected() throws {
        let harness = try ControlBadInputHarness()
        for wildcard in ["/a{b", "/a[b"] {
            try harness.assertRejected("wildcard url \(wildcard)", 400, mentioning: ["regular expression", "regexp", "wildcard"]) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"\#(wildcard)"},"headers":{}},
                     "response":{"status":200,"headers":{}}}
                    """#)
            }
            try harness.assertRejected("wildcard header \(wildcard)", 400, mentioning: ["regular expression", "regexp", "wildcard"]) {
                try $0.json("POST", "/catbird/api/mocks", #"""
                    {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/other"},
                     "headers":{"X-A":{"kind":"wildcard","value":"\#(wildcard)"}}},"response":{"status":200,"headers":{}}}
                    """#)
            }
        }
    }

    func testFieldsOfTheWrongTypeAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, String)] = [
            ("status as text", ControlBadInputHarness.update(response: #"{"status":"200","headers":{}}"#), "status"),
            ("status missing", ControlBadInputHarness.update(response: #"{"headers":{}}"#), "status"),
            ("limit as text", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"limit":"2"}"#), "limit"),
            ("delay as text", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"delay":"1"}"#), "delay"),
            ("body as a number", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"body":5}"#), "body"),
            ("response headers as an array", ControlBadInputHarness.update(response: #"{"status":200,"headers":["a"]}"#), "headers"),
            ("response header value as a number", ControlBadInputHarness.update(response: #"{"status":200,"headers":{"X-A":1}}"#), "headers"),
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

    /// A whole-number field given a fraction is valid JSON of the wrong type: the reason must
    /// name the field, like every other wrong type, not call the JSON malformed.
    func testFractionalStatusReasonNamesTheField() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("status 200.5", 400, mentioning: ["status"]) {
            try $0.json("POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200.5,"headers":{}}"#))
        }
    }

    func testBodyThatIsNotUTF8IsRejected() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(#"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/o"#.utf8)
            + [0xFF, 0xFE]
            + Array(#""},"headers":{}},"response":{"status":200,"headers":{}}}"#.utf8)
        try harness.assertRejected("invalid UTF-8 in a string", 400, mentioning: []) {
            try $0.request("POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: body)
        }
    }

    func testDeeplyNestedJSONIsRejected() throws {
        let harness = try ControlBadInputHarness()
        let depth = 100_000
        let body = #"{"type":"update","pattern":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        try harness.assertRejected("JSON nested \(depth) deep", 400, mentioning: []) {
            try $0.json("POST", "/catbird/api/mocks", body)
        }
    }

    func testOtherNonJSONContentTypesAreUnsupported() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#).utf8)
        for contentType in ["application/x-www-form-urlencoded", "application/jsonx", "text/json", "json"] {
            try harness.assertRejected("Content-Type \(contentType.debugDescription)", 415, mentioning: ["Content-Type", "JSON"]) {
                try $0.request("POST", "/catbird/api/mocks", headers: [("Content-Type", contentType)], body: body)
            }
        }
    }

    /// An empty Content-Type value is missing JSON, so 415 like any non-JSON type. (Regression
    /// test: the server crashed on this input.)
    func testEmptyContentTypeIsUnsupported() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#).utf8)
        for contentType in ["", ";", " ; charset=utf-8"] {
            try harness.assertRejected("Content-Type \(contentType.debugDescription)", 415, mentioning: ["Content-Type", "JSON"]) {
                try $0.request("POST", "/catbird/api/mocks", headers: [("Content-Type", contentType)], body: body)
            }
        }
    }

    /// A rejected action sent with a parallel id creates no tenant.
    func testRejectedActionWithParallelIdCreatesNoTenant() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("bad base64 from tenant ghost", 400, mentioning: ["base64"]) {
            try $0.json(
                "POST", "/catbird/api/mocks", ControlBadInputHarness.update(response: #"{"status":200,"headers":{},"body":"%%%"}"#),
                headers: [("X-Catbird-Parallel-Id", "ghost")])
        }
        let ghost = try FixtureTestSupport.listMocks(harness.client, tenant: "ghost")
        XCTAssertEqual((ghost.object["mocks"] as? [Any])?.count, 0, "tenant ghost has no mocks")
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

    // MARK: - Body size

    /// The limit holds for a chunked body too (no Content-Length to check up front).
    func testOversizedChunkedBodyIsTooLarge() throws {
        let harness = try ControlBadInputHarness(configure: { $0.maxBodySize = 1024 })
        let start = #"{"type":"update","pattern":\#(ControlBadInputHarness.otherPattern),"response":{"status":200,"headers":{}},"padding":""#
        let end = #""}"#
        let json = Array((start + String(repeating: "x", count: 2000 - start.utf8.count - end.utf8.count) + end).utf8)
        var raw = Array("POST /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < json.count {
            let chunk = json[offset..<min(offset + 500, json.count)]
            raw += Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Array("\r\n".utf8)
            offset += chunk.count
        }
        raw += Array("0\r\n\r\n".utf8)
        try harness.assertRejected("2000-byte chunked body over a 1024-byte limit", 413, mentioning: ["1024", "large", "limit"], reconnectAfter: true) {
            try $0.send(raw: raw)
            return try $0.readResponse()
        }
    }

    func testOversizedSQLBodyIsTooLarge() throws {
        let harness = try ControlBadInputHarness(configure: { $0.maxBodySize = 1024 })
        let sql = "SELECT 1" + String(repeating: " ", count: 1500)
        try harness.assertRejected("1500-byte SQL body over a 1024-byte limit", 413, mentioning: ["1024", "large", "limit"], reconnectAfter: true) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":"\#(sql)"}"#)
        }
    }

    // MARK: - SQL route

    func testMoreSQLWritesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let statements = [
            "UPDATE mocks SET hits = 99",
            "REPLACE INTO tenants SELECT * FROM tenants",
            "WITH x AS (SELECT 1) DELETE FROM requests",
            "CREATE TABLE t(x)",
            "CREATE TEMP TABLE t(x)",
            "PRAGMA user_version = 3",
            "BEGIN",
            "DETACH DATABASE main",
            "VACUUM",
            "REINDEX",
            "ANALYZE",
        ]
        for sql in statements {
            try harness.assertRejected("SQL \(sql)", 400, mentioning: ["read-only", "read only", "statement"]) {
                try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
            }
        }
    }

    func testSQLVacuumIntoCreatesNoFile() throws {
        let harness = try ControlBadInputHarness()
        let path = harness.server.directory.appendingPathComponent("copy.db").path
        try harness.assertRejected("SQL VACUUM INTO", 400, mentioning: ["read-only", "read only", "statement"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical("VACUUM INTO '\(path)'"))}"#)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a refused VACUUM INTO must not create \(path)")
    }

    func testMoreSQLBadBodiesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, [String])] = [
            ("sql missing", #"{"params":[]}"#, ["sql"]),
            ("sql as a number", #"{"sql":1}"#, ["sql"]),
            ("sql empty", #"{"sql":""}"#, ["statement", "sql"]),
            ("sql only a comment", #"{"sql":"-- nothing"}"#, ["statement", "sql"]),
            ("params not an array", #"{"sql":"SELECT ?","params":1}"#, ["param"]),
            ("params an array in an array", #"{"sql":"SELECT ?","params":[[1]]}"#, ["param"]),
            ("too many params", #"{"sql":"SELECT ?","params":[1,2]}"#, ["param"]),
            ("too few params", #"{"sql":"SELECT ?, ?","params":[1]}"#, ["param"]),
            ("maxRows negative", #"{"sql":"SELECT 1","maxRows":-1}"#, ["maxRows"]),
            ("maxRows over 10000", #"{"sql":"SELECT 1","maxRows":10001}"#, ["maxRows"]),
            ("maxRows as text", #"{"sql":"SELECT 1","maxRows":"5"}"#, ["maxRows"]),
            ("syntax error", #"{"sql":"SELEKT 1"}"#, ["syntax", "SELEKT"]),
            ("unknown table", #"{"sql":"SELECT * FROM no_such_table"}"#, ["no_such_table"]),
        ]
        for (label, body, problem) in cases {
            try harness.assertRejected("SQL \(label)", 400, mentioning: problem) {
                try $0.json("POST", "/catbird/api/sql", body)
            }
        }
        try harness.assertRejected("SQL without Content-Type", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request("POST", "/catbird/api/sql", body: Array(#"{"sql":"SELECT 1"}"#.utf8))
        }
    }

    /// A query past the time limit is stopped with a 400, and the server keeps serving.
    func testSQLPastItsTimeLimitIsStopped() throws {
        let harness = try ControlBadInputHarness(configure: { $0.sqlTimeLimit = .milliseconds(300) })
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
        let clock = ContinuousClock()
        let start = clock.now
        try harness.assertRejected("SQL endless recursive CTE", 400, mentioning: ["time", "interrupt"]) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":\#(FixtureTestSupport.canonical(sql))}"#)
        }
        XCTAssertLessThan(start.duration(to: clock.now), .seconds(10), "the time limit must stop the query")
    }

    // MARK: - Journal and admin routes

    func testMoreBadJournalQueriesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases = [
            ("limit=0", "limit"), ("limit=", "limit"), ("limit=-5", "limit"), ("limit=1.5", "limit"),
            ("since=abc", "since"), ("since=", "since"), ("status=abc", "status"), ("answeredBy=", "answeredBy"),
            ("bogus=1", "bogus"),
        ]
        for (query, problem) in cases {
            try harness.assertRejected("GET /catbird/api/requests?\(query)", 400, mentioning: [problem]) {
                try $0.request("GET", "/catbird/api/requests?\(query)")
            }
        }
    }

    func testBadRequestCountBodiesAreRejected() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(String, String, [String])] = [
            ("malformed JSON", #"{"pattern":"#, ["JSON"]),
            ("pattern missing", "{}", ["pattern"]),
            ("url missing", #"{"pattern":{"method":"GET"}}"#, ["url"]),
            ("invalid regexp", #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"(unclosed"}}}"#,
             ["regular expression", "regexp", "(unclosed"]),
            ("invalid kind", #"{"pattern":{"method":"GET","url":{"kind":"glob","value":"/x"}}}"#, ["glob"]),
        ]
        for (label, body, problem) in cases {
            try harness.assertRejected("requests/count \(label)", 400, mentioning: problem) {
                try $0.json("POST", "/catbird/api/requests/count", body)
            }
        }
        try harness.assertRejected("requests/count text/plain", 415, mentioning: ["Content-Type", "JSON"]) {
            try $0.request(
                "POST", "/catbird/api/requests/count", headers: [("Content-Type", "text/plain")],
                body: Array(#"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/known"}}}"#.utf8))
        }
    }

    func testWrongMethodsOnOtherRoutesAreNotAllowed() throws {
        let harness = try ControlBadInputHarness()
        for (method, path) in [
            ("GET", "/catbird/api/sql"), ("POST", "/catbird/api/requests"), ("GET", "/catbird/api/requests/count"),
            ("POST", "/catbird/api/tenants"), ("POST", "/catbird/api/health"),
        ] {
            try harness.assertRejected("\(method) \(path)", 405, mentioning: []) {
                try $0.request(method, path)
            }
        }
    }

    func testUnknownPathsUnderCatbirdAreNotFound() throws {
        let harness = try ControlBadInputHarness()
        for path in ["/catbird/api", "/catbird/api/", "/catbird/api/mocks/", "/catbird/api/mocks/1", "/catbird/nope"] {
            try harness.assertRejected("GET \(path)", 404, mentioning: []) {
                try $0.request("GET", path)
            }
        }
    }
}
