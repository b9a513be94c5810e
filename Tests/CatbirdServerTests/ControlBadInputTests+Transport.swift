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
