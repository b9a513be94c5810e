import CatbirdTestSupport
import Foundation
import XCTest

/// A control body holding more than 100,000 JSON values is refused with 400 after the first
/// 100,001 are read, before Foundation's decoder builds any of them (docs/protocol.md#request-bodies).
final class ControlBodyValueLimitTests: XCTestCase {
    /// Tester finding T17-F2, the exact input: a 40 MB `removeAll` with the unknown key `x`
    /// holding 20,971,520 zeros was refused (`unknown key "x"`) only after 79 s, the server's
    /// peak memory 1.4 GB. Now the 400 says the body holds too many values, at once; the server
    /// stays small and keeps its mocks. A body just under the limit is read as before (its own
    /// 400 for the unknown key), and an SQL query with 30,000 parameters runs.
    func testABodyOfMillionsOfValuesIsRefusedBeforeItIsDecoded() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
        try E2E.addMock(client, url: "/kept", body: "kept")
        try server.resetPeakResident()

        let body = Array((#"{"type":"removeAll","x":["# + String(repeating: "0,", count: 20 * 1024 * 1024 - 1) + "0]}").utf8)
        let began = ContinuousClock.now
        let refused = try client.request(
            "POST", "/catbird/api/mocks", headers: [("Content-Type", "application/json")], body: body)
        let took = ContinuousClock.now - began
        E2E.assertError(refused, status: 400, reasonContains: "the JSON body holds more than 100000 values (array elements, object members)")
        XCTAssertLessThan(took, .seconds(10), "refused without decoding (79 s before)")
        XCTAssertLessThan(try server.peakResidentMegabytes(), 300, "not 1.4 GB")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept", "removeAll did nothing")

        let under = #"{"type":"removeAll","x":["# + Array(repeating: "0", count: 99_990).joined(separator: ",") + "]}"
        E2E.assertError(try client.json("POST", "/catbird/api/mocks", under), status: 400, reasonContains: #"unknown key "x""#)
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")

        let params = Array(repeating: "1", count: 29_999).joined(separator: ",") + ",30000"
        let sum = try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT ?30000 AS n","params":[\#(params)]}"#)
        XCTAssertEqual(sum.status, 200, String(sum.text.prefix(300)))
        XCTAssertTrue(sum.text.contains("30000"), String(sum.text.prefix(300)))
        }
    }
}
