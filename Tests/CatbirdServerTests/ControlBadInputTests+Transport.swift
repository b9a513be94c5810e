import CatbirdTestSupport
import Foundation
import XCTest

/// Bad input in how a control request is sent: its content type and its size.
extension ControlBadInputTests {
    /// Anything but JSON is 415. An empty Content-Type value is missing JSON too (regression
    /// test: the server crashed on this input).
    func testNonJSONContentTypesAreUnsupported() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#).utf8)
        let types: [String?] = [
            "text/plain", nil, "application/x-www-form-urlencoded", "application/jsonx", "text/json", "json", "", ";", " ; charset=utf-8",
        ]
        for contentType in types {
            try harness.assertRejected("Content-Type \(contentType.map(\.debugDescription) ?? "missing")", 415, mentioning: ["Content-Type", "JSON"]) {
                try $0.request("POST", "/catbird/api/mocks", headers: contentType.map { [("Content-Type", $0)] } ?? [], body: body)
            }
        }
    }

    /// Regression (tester59c-F2, its exact requests): with two Content-Type fields only the
    /// first was read: `application/json` then `text/plain` stored the mock (201), the other
    /// order got a 415 asking for the type it had sent. Either order is now a 400 naming both,
    /// and nothing changes (the harness checks); two equal fields are one type.
    func testTwoDifferingContentTypesAreRefusedInEitherOrder() throws {
        let harness = try ControlBadInputHarness()
        let body = Array(ControlBadInputHarness.update(response: #"{"status":200,"headers":{}}"#).utf8)
        for types in [["application/json", "text/plain"], ["text/plain", "application/json"]] {
            try harness.assertRejected("Content-Type \(types)", 400, mentioning: [
                "the request has 2 Content-Type values that differ (\"\(types[0])\", \"\(types[1])\")", "send one",
            ]) {
                try $0.request("POST", "/catbird/api/mocks", headers: types.map { ("Content-Type", $0) }, body: body)
            }
        }
        let sql = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", "application/json"), ("Content-Type", "text/plain")],
            body: Array(#"{"sql":"select 1"}"#.utf8))
        E2E.assertError(sql, status: 400, reasonContains: "Content-Type values that differ")
        // Regression (tester60a-F7): one comma-separated field got the 415 asking for the type it held.
        let listed = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", "application/json, text/plain")], body: Array(#"{"sql":"select 1"}"#.utf8))
        E2E.assertError(listed, status: 400, reasonContains: #"Content-Type values that differ ("application/json", "text/plain")"#)
        // JSON in each, spelled otherwise or with a charset, is one type (tester60a-F7: a 400).
        for pair in [("application/json", "application/json; charset=utf-8"), ("application/json", "Application/JSON")] {
            let same = try harness.client.request(
                "POST", "/catbird/api/sql", headers: [("Content-Type", pair.0), ("Content-Type", pair.1)],
                body: Array(#"{"sql":"select 1"}"#.utf8))
            XCTAssertEqual(same.status, 200, "\(pair): \(same.text)")
        }
        let same = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", "application/json"), ("Content-Type", "application/json")],
            body: Array(#"{"sql":"select 1"}"#.utf8))
        XCTAssertEqual(same.status, 200, same.text)
    }

    /// Regression (tester60a-F10 and tester58b-F4, their body): an array of actions got only
    /// "the JSON body must be an object". It says one action per call now, and nothing changes.
    func testAnArrayOfActionsIsToldOneActionPerCall() throws {
        let harness = try ControlBadInputHarness()
        try harness.assertRejected("an array of actions", 400, mentioning: ["the JSON body is an array, and this route takes one action per call"]) {
            try $0.json("POST", "/catbird/api/mocks", #"[{"type":"removeAll"}]"#)
        }
        try harness.assertRejected("an array of updates", 400, mentioning: ["post each action on its own"]) {
            try $0.json("POST", "/catbird/api/mocks", " \n[" + ControlBadInputHarness.update(response: #"{"status":200}"#) + "]")
        }
    }

    /// Regression (tester61a-F6, its fields): a comma inside a quoted parameter value split one
    /// Content-Type in two: `application/json; charset="utf-8, x"` got a 400 "2 Content-Type values
    /// that differ", `multipart/form-data; boundary="a,b"` the same instead of the 415.
    func testACommaInsideAQuotedContentTypeParameterIsNotASeparator() throws {
        let harness = try ControlBadInputHarness()
        let sql = Array(#"{"sql":"select 1"}"#.utf8)
        let quoted = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", #"application/json; charset="utf-8, x""#)], body: sql)
        XCTAssertEqual(quoted.status, 200, quoted.text)
        let escaped = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", #"application/json; x="a\"b,c""#)], body: sql)
        XCTAssertEqual(escaped.status, 200, escaped.text)
        let multipart = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", #"multipart/form-data; boundary="a,b""#)], body: sql)
        E2E.assertError(multipart, status: 415, reasonContains: "Content-Type")
        // Outside the quotes a comma still separates.
        let two = try harness.client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", #"application/json; x="a", text/plain"#)], body: sql)
        E2E.assertError(two, status: 400, reasonContains: #"Content-Type values that differ ("application/json; x=\"a\"", "text/plain")"#)
    }

    /// T12-F5: a gzipped `{"type":"removeAll"}` got 400 `invalid JSON … found the control
    /// character U+001F`. A control body is read as sent, so any Content-Encoding but identity
    /// is 415 saying so, and nothing is removed (the harness checks nothing changed).
    func testCompressedControlBodiesAreUnsupported() throws {
        let harness = try ControlBadInputHarness()
        // Python's gzip.compress(b'{"type":"removeAll"}', mtime=0).
        let gzipped: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 171, 86, 42, 169, 44, 72, 85, 178, 82, 42, 74, 205, 205, 47, 75, 117, 204, 201, 81, 170, 5, 0,
            31, 211, 32, 18, 20, 0, 0, 0,
        ]
        for coding in ["gzip", "deflate", "GZIP "] {
            try harness.assertRejected("Content-Encoding \(coding)", 415, mentioning: ["is not accepted on control routes: send the JSON uncompressed"]) {
                try $0.request(
                    "POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json"), ("Content-Encoding", coding)], body: gzipped)
            }
        }
        // Read as mock routes read the field (ContentDecoding.codings): a list of identities is no
        // coding either (it was a 415 when the control check compared the whole value).
        for coding in ["identity", " Identity ", "identity, identity"] {
            let plain = try harness.client.request(
                "POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json"), ("Content-Encoding", coding)],
                body: Array(#"{"type":"removeAll"}"#.utf8))
            XCTAssertEqual(plain.status / 100, 2, "\(coding) is no coding: \(plain.text)")
        }
    }

    /// Over `--max-body-size`: with a Content-Length, chunked (no length to check up front), and
    /// on the SQL route. The action is a valid update for another URL, padded (extra keys are
    /// ignored) to 2000 bytes, so a server that ignored the limit would visibly store it.
    func testOversizedBodiesAreTooLarge() throws {
        let harness = try ControlBadInputHarness(configure: { $0.maxBodySize = 1024 })
        let start = #"{"type":"update","pattern":\#(ControlBadInputHarness.otherPattern),"response":{"status":200,"headers":{}},"padding":""#
        let end = #""}"#
        let text = start + String(repeating: "x", count: 2000 - start.utf8.count - end.utf8.count) + end
        XCTAssertEqual(text.utf8.count, 2000)
        try harness.assertRejected("2000-byte body over a 1024-byte limit", 413, mentioning: ["1024", "large", "limit"], reconnectAfter: true) {
            try $0.json("POST", "/catbird/api/mocks", text)
        }

        let json = Array(text.utf8)
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

        let sql = "SELECT 1" + String(repeating: " ", count: 1500)
        try harness.assertRejected("1500-byte SQL body over a 1024-byte limit", 413, mentioning: ["1024", "large", "limit"], reconnectAfter: true) {
            try $0.json("POST", "/catbird/api/sql", #"{"sql":"\#(sql)"}"#)
        }
    }
}
