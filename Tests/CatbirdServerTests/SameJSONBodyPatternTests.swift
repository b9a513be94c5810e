import CatbirdTestSupport
import Foundation
import XCTest

/// `update` and `remove` compare a `json` body pattern's value as JSON, as the `json` matcher
/// does (docs/matching.md#update-replaces-in-place): two spellings of one JSON value match the
/// same bodies, so they are the same pattern.
final class SameJSONBodyPatternTests: ServerTestCase {
    private static let tenant = [("X-Catbird-Parallel-Id", "t18-bp2")]

    private func control(_ action: String) throws -> RawResponse {
        try client.json("POST", "/catbird/api/mocks", action, headers: Self.tenant)
    }

    private func update(body: String, answer: String) throws -> RawResponse {
        try control(
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/bp"},"body":\#(body)},"response":{"status":200,"body":"\#(answer)"}}"#)
    }

    private func post(_ body: String) throws -> RawResponse {
        try client.request("POST", "/bp", headers: Self.tenant + [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    /// Regression (tester finding T18A-F9), the exact actions: `json` `{"a":1, "b":2}`, then an
    /// update with `{"b":2,"a":1}`, appended a second mock that was never served (the first
    /// answered "old"), and a `remove` with the other spelling removed nothing.
    func testAnUpdateWithTheSameJSONInAnotherKeyOrderOrSpacingReplacesTheMock() throws {
        XCTAssertEqual(try update(body: #"{"kind":"json","value":"{\"a\":1, \"b\":2}"}"#, answer: "b2xk").status, 201)
        let replaced = try update(body: #"{"kind":"json","value":"{\"b\":2,\"a\":1}"}"#, answer: "bmV3")
        XCTAssertEqual(replaced.status, 201, replaced.text)
        XCTAssertEqual(replaced.text, "", "a replacement, no warning")
        let mocks = try E2E.mocks(client, tenant: "t18-bp2")
        XCTAssertEqual(mocks.count, 1, "\(mocks)")
        XCTAssertEqual(((mocks.first?["pattern"] as? [String: Any])?["body"] as? [String: Any])?["value"] as? String,
                       #"{"b":2,"a":1}"#, "the new pattern kept as written")
        XCTAssertEqual(try post(#"{"a":1,"b":2}"#).text, "new")

        // Numbers by the json rule too (1 equals 1.0), and whitespace around the value.
        let again = try update(body: #"{"kind":"json","value":" {\"b\":2.0,\n\"a\":1e0} "}"#, answer: "bmV3ZXI=")
        XCTAssertEqual(again.text, "")
        XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, 1)
        XCTAssertEqual(try post(#"{"a":1,"b":2}"#).text, "newer")

        let removed = try control(
            #"{"type":"remove","pattern":{"method":"POST","url":{"kind":"equal","value":"/bp"},"body":{"kind":"json","value":"{\"a\":1, \"b\":2}"}}}"#)
        XCTAssertEqual(removed.status, 204)
        XCTAssertNil(removed.header("X-Catbird-Warning"), "the other spelling removed the mock")
        XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, 0)
    }

    /// JSON that differs (an array's order, a type, a key more) is another pattern, as before;
    /// so is a `json` value and an `equal` value of the same text. A `jsonPath`'s `equalTo` is
    /// read as JSON already: another key order in it replaces too.
    func testOtherJSONAndOtherKindsStayOtherPatternsAndEqualToComparesAsJSON() throws {
        let bodies = [
            #"{"kind":"json","value":"[1,2]"}"#, #"{"kind":"json","value":"[2,1]"}"#,
            #"{"kind":"json","value":"{\"a\":\"1\"}"}"#, #"{"kind":"json","value":"{\"a\":1}"}"#,
            #"{"kind":"json","value":"{\"a\":1,\"c\":null}"}"#, #"{"kind":"equal","value":"{\"a\":1}"}"#,
            #"{"kind":"jsonPath","value":"$.u","equalTo":{"a":1,"b":[true,null]}}"#,
        ]
        for (index, body) in bodies.enumerated() {
            let added = try update(body: body, answer: "b2xk")
            XCTAssertEqual(added.status, 201, added.text)
            XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, index + 1, body)
        }
        let replaced = try update(body: #"{"kind":"jsonPath","value":"$.u","equalTo":{"b":[true,null],"a":1.0}}"#, answer: "bmV3")
        XCTAssertEqual(replaced.status, 201, replaced.text)
        XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, bodies.count)
        XCTAssertEqual(try post(#"{"u":{"a":1,"b":[true,null]}}"#).text, "new")
    }

    /// Regression (tester finding tester28a-F5), the exact values: with the mock of `json`
    /// `{"a":1}`, a `remove` with `{"a":1,}` or `{"a":1,"a":2}` (values `update` refuses, not
    /// JSON as RFC 8259 and this server read it) removed the mock, read by the lenient reader
    /// of stored mocks; so did `{"a":[1,],}` that of `{"a":[1]}`. Such a value is compared as
    /// text: nothing is removed, and the 204 says so.
    func testARemoveWithAValueThatIsNotJSONIsComparedAsText() throws {
        for (stored, removal) in [(#"{\"a\":1}"#, #"{\"a\":1,}"#), (#"{\"a\":1}"#, #"{\"a\":1,\"a\":2}"#), (#"{\"a\":[1]}"#, #"{\"a\":[1,],}"#)] {
            XCTAssertEqual(try update(body: #"{"kind":"json","value":"\#(stored)"}"#, answer: "b2xk").status, 201)
            let removed = try control(
                #"{"type":"remove","pattern":{"method":"POST","url":{"kind":"equal","value":"/bp"},"headers":{},"body":{"kind":"json","value":"\#(removal)"}}}"#)
            XCTAssertEqual(removed.status, 204, removed.text)
            XCTAssertNotNil(removed.header("X-Catbird-Warning"), "nothing was removed: \(removal)")
            XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, 1, "\(stored) kept by \(removal)")

            // The same JSON as its value, in another spelling, still removes it.
            let same = try control(
                #"{"type":"remove","pattern":{"method":"POST","url":{"kind":"equal","value":"/bp"},"headers":{},"body":{"kind":"json","value":" \#(stored) "}}}"#)
            XCTAssertEqual(same.status, 204, same.text)
            XCTAssertNil(same.header("X-Catbird-Warning"), same.text)
            XCTAssertEqual(try E2E.mocks(client, tenant: "t18-bp2").count, 0, "\(stored) removed")
        }
    }
}
