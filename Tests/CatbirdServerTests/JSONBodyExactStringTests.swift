import CatbirdTestSupport
import Foundation
import XCTest

/// The `json` body matcher, `jsonPath`'s `equalTo`, and the journal's count that shares them
/// compare JSON strings and object keys exactly, Unicode scalar by scalar (RFC 8259 §8.3;
/// docs/matching.md#body-matchers), not by Swift's canonical equivalence, as `jsonPath`'s
/// member names already were.
final class JSONBodyExactStringTests: ServerTestCase {
    private func update(_ tenant: String, body: String) throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/b"},"headers":{},"body":\#(body)},"response":{"status":200,"headers":{}}}"#,
            headers: [("X-Catbird-Parallel-Id", tenant)])
    }

    private func post(_ tenant: String, _ body: String) throws -> Int {
        try client.request("POST", "/b", headers: [("X-Catbird-Parallel-Id", tenant)], body: Array(body.utf8)).status
    }

    /// Regression (tester finding tester21a-F5), the exact inputs: the `json` value `{"é":1}`
    /// (NFC, C3 A9) matched the body `{"e\u0301":1}` (NFD); `"\u212A"` (KELVIN SIGN) matched
    /// `"K"`; `jsonPath` `$.a` `equalTo` `"é"` matched `{"a":"e\u0301"}`; while `jsonPath`
    /// `$.é` did not find the NFD key (its member names compared byte for byte).
    func testCanonicallyEquivalentStringsAndKeysAreDifferent() throws {
        XCTAssertEqual(try update("u1", body: #"{"kind":"json","value":"{\"\u00e9\":1}"}"#).status, 201)
        XCTAssertEqual(try post("u1", "{\"e\u{301}\":1}"), 404, "an NFD key is another key")
        XCTAssertEqual(try post("u1", "{\"\u{E9}\":1}"), 200)

        XCTAssertEqual(try update("u3", body: #"{"kind":"jsonPath","value":"$.\u00e9","equalTo":1}"#).status, 201)
        XCTAssertEqual(try post("u3", "{\"e\u{301}\":1}"), 404)
        XCTAssertEqual(try post("u3", "{\"\u{E9}\":1}"), 200)

        XCTAssertEqual(try update("u4", body: #"{"kind":"json","value":"\"\u212A\""}"#).status, 201)
        XCTAssertEqual(try post("u4", "\"K\""), 404, "KELVIN SIGN is not K")
        XCTAssertEqual(try post("u4", "\"k\""), 404)
        XCTAssertEqual(try post("u4", "\"\u{212A}\""), 200)

        XCTAssertEqual(try update("u5", body: #"{"kind":"jsonPath","value":"$.a","equalTo":"\u00e9"}"#).status, 201)
        XCTAssertEqual(try post("u5", "{\"a\":\"e\u{301}\"}"), 404, "equalTo compares the string exactly")
        XCTAssertEqual(try post("u5", "{\"a\":\"\u{E9}\"}"), 200)
    }

    /// Regression (tester21a-F5): the `json` value `{"é":1,"e\u0301":2}` names two different keys,
    /// and was refused 400 as naming "é" more than once.
    func testTwoCanonicallyEquivalentKeysAreTwoKeys() throws {
        let added = try update("u2", body: #"{"kind":"json","value":"{\"\u00e9\":1,\"e\u0301\":2}"}"#)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(try post("u2", "{\"e\u{301}\":2,\"\u{E9}\":1}"), 200)
        XCTAssertEqual(try post("u2", "{\"\u{E9}\":1}"), 404)
        XCTAssertEqual(try post("u2", "{\"\u{E9}\":1,\"\u{E9}\":2}"), 404, "one key named twice reads as {\"é\":1}")
        let twice = try update("u2", body: #"{"kind":"json","value":"{\"\u00e9\":1,\"\u00e9\":2}"}"#)
        XCTAssertEqual(twice.status, 400, "the same key twice is still refused")
    }

    /// A control body's own keys are still compared as the decoder that reads it joins them:
    /// two header names that are canonically equivalent are one key named twice there.
    func testAControlBodysKeysAreStillComparedAsItsDecoderReadsThem() throws {
        let answer = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/b"},"headers":{"\u00e9":{"kind":"equal","value":"1"},"e\u0301":{"kind":"equal","value":"2"}}},"response":{"status":200}}"#,
            headers: [("X-Catbird-Parallel-Id", "u7")])
        XCTAssertEqual(answer.status, 400, answer.text)
        XCTAssertTrue(answer.text.contains("more than once"), answer.text)
    }

    /// Regression (tester21a-F5): the journal's count agreed with the mock and counted the NFD
    /// body for the `json` value `"é"` in NFC.
    func testCountComparesStringsExactly() throws {
        XCTAssertEqual(try post("u6", "\"\u{E9}\""), 404)
        XCTAssertEqual(try post("u6", "\"e\u{301}\""), 404)
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/b"},"body":{"kind":"json","value":"\"\u00e9\""}}"#
        XCTAssertEqual(try E2E.count(client, tenant: "u6", patternJSON: pattern), 1)
    }
}
