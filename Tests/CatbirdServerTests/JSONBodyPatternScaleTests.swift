import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// try9a F18/F19: the `json` body pattern read a 61.5 KB JSON body in about 40 ms of CPU (each
/// try of a kind in `JSONDecoder` made an error), so 20 such journal rows made a `json` count
/// answer 400 "too slow … simplify the regular expression", and a wait called itself a count.
/// Now a body is read in one pass (``JSONBodyParser``), and a search too slow names its route
/// and the pattern's slow parts (docs/protocol.md#count).
final class JSONBodyPatternScaleTests: ServerTestCase {
    /// The tester's body: `print(json.dumps([{"id": i, "name": "n%d" % i, "tags": ["a", "b"]} for i in range(1250)]))` (Python).
    private static let body: [UInt8] = {
        let items = (0..<1250).map { #"{"id": \#($0), "name": "n\#($0)", "tags": ["a", "b"]}"# }
        return Array(("[" + items.joined(separator: ", ") + "]\n").utf8)
    }()

    private func addJSONMock(url: String, value: String, tenant: String) throws {
        let action = #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"\#(url)"},"body":{"kind":"json","value":\#(JSONText.string(value))}},"response":{"status":200,"body":"anNvbg=="}}"#
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(answer.status, 201, answer.text)
    }

    private func pattern(url: String, json value: String) -> String {
        #"{"method":"POST","url":{"kind":"equal","value":"\#(url)"},"body":{"kind":"json","value":\#(JSONText.string(value))}}"#
    }

    func testFortyJournaledSixtyKilobyteBodiesAreMatchedByJSONMocksCountFindAndWait() throws {
        let tenant = "jbig"
        let text = String(decoding: Self.body, as: UTF8.self)
        XCTAssertEqual(Self.body.count, 61_531)
        try addJSONMock(url: "/jbig", value: text, tenant: tenant)
        try addJSONMock(url: "/js", value: #"{"a":1}"#, tenant: tenant)
        let send = E2E.PipelinedRequest(
            method: "POST", target: "/jbig", headers: [("Content-Type", "application/json")] + E2E.tenantHeader(tenant), body: Self.body)
        let answers = try E2E.pipeline(client, Array(repeating: send, count: 20))
        XCTAssertEqual(answers.map(\.status), Array(repeating: 200, count: 20), "the json mock matched each body")
        var miss = send
        miss.target = "/js"
        XCTAssertEqual(try E2E.pipeline(client, [miss]).first?.status, 404)

        // The tester's count answered 400 "too slow" over 20 such rows (every time, on an idle
        // machine); the limit is 2 s of the wall clock. It takes about 0.3 s here; on a machine
        // loaded by other work it once took 1.8 s and was stopped (the clean-clone CI of e463cd3,
        // run beside two testers' servers), so one such stop is asked again: the regression, a
        // count too slow every time, still fails.
        let big = #"{"pattern":\#(pattern(url: "/jbig", json: text))}"#
        var counted = try client.json("POST", "/catbird/api/requests/count", big, headers: E2E.tenantHeader(tenant))
        if counted.status == 400, counted.text.contains("too slow") {
            counted = try client.json("POST", "/catbird/api/requests/count", big, headers: E2E.tenantHeader(tenant))
        }
        XCTAssertEqual(counted.status, 200, counted.text)
        XCTAssertEqual(JSONNumber.int(counted.object["count"]), 20)
        XCTAssertEqual(try E2E.count(client, tenant: tenant, patternJSON: pattern(url: "/jbig", json: #"{"a":1}"#)), 0)
        let reordered = #"[{"tags":["a","b"],"name":"n0","id":0.0e0}]"#
        XCTAssertEqual(try E2E.count(client, tenant: tenant, patternJSON: pattern(url: "/jbig", json: reordered)), 0)

        let found = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern(url: "/jbig", json: text)),"limit":50,"bodies":false}"#,
            headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(found.status, 200, found.text)
        XCTAssertEqual((found.object["requests"] as? [Any])?.count, 20)
        let none = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern(url: "/js", json: #"{"a":1}"#))}"#,
            headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(none.status, 200, none.text)
        XCTAssertEqual((none.object["requests"] as? [Any])?.count, 0)

        let waited = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern(url: "/jbig", json: text)),"timeout":1}"#,
            headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(waited.status, 200, waited.text)
    }
}
