import CatbirdTestSupport
import Foundation
import XCTest

/// `update`'s "same pattern, replace in place" and `remove` compare a `regexp` or `wildcard`
/// value exactly, Unicode scalar by scalar, as ICU matches it; an `equal` value keeps its
/// canonical-equivalence identity, as it matches (Catbird 0.11); docs/matching.md#update-replaces-in-place.
final class SamePatternExactExpressionTests: ServerTestCase {
    private func action(_ tenant: String, _ type: String, method: String = "GET", url: String, extra: String = "") throws -> RawResponse {
        let response = type == "update" ? #","response":{"status":200,"headers":{}}"# : ""
        return try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"\#(type)","pattern":{"method":"\#(method)","url":\#(url),"headers":{}\#(extra)}\#(response)}"#,
            headers: [("X-Catbird-Parallel-Id", tenant)])
    }

    private func get(_ tenant: String, _ target: String) throws -> Int {
        try client.request("GET", target, headers: [("X-Catbird-Parallel-Id", tenant)]).status
    }

    /// Regression (tester finding tester21a-F6), the exact actions: `regexp` `^/r\u00e9$` (NFC)
    /// then `^/re\u0301$` (NFD) left one mock, the NFD one, so `/ré` in NFC got 404; likewise
    /// `wildcard` `/wé*` then `/we\u0301*`, where `/wéx` in NFC got 404.
    func testCanonicallyEquivalentExpressionsAreTwoPatterns() throws {
        XCTAssertEqual(try action("nf2", "update", url: #"{"kind":"regexp","value":"^/r\u00e9$"}"#).status, 201)
        XCTAssertEqual(try action("nf2", "update", url: #"{"kind":"regexp","value":"^/re\u0301$"}"#).status, 201)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf2").count, 2)
        XCTAssertEqual(try get("nf2", "/r\u{E9}"), 200)
        XCTAssertEqual(try get("nf2", "/re\u{301}"), 200)

        XCTAssertEqual(try action("nf3", "update", url: #"{"kind":"wildcard","value":"/w\u00e9*"}"#).status, 201)
        XCTAssertEqual(try action("nf3", "update", url: #"{"kind":"wildcard","value":"/we\u0301*"}"#).status, 201)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf3").count, 2)
        XCTAssertEqual(try get("nf3", "/w\u{E9}x"), 200)
        XCTAssertEqual(try get("nf3", "/we\u{301}x"), 200)

        // `remove` follows the same identity: the NFD regexp removes only itself.
        XCTAssertEqual(try action("nf2", "remove", url: #"{"kind":"regexp","value":"^/re\u0301$"}"#).status, 204)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf2").count, 1)
        XCTAssertEqual(try get("nf2", "/r\u{E9}"), 200)
        XCTAssertEqual(try get("nf2", "/re\u{301}"), 404)
    }

    /// An `equal` url keeps its documented identity (docs/matching.md#pattern-kinds): NFC and
    /// NFD are one pattern, as they match the same requests; `update` replaces and `remove`
    /// removes across them.
    func testEqualValuesKeepCanonicalEquivalence() throws {
        XCTAssertEqual(try action("nf4", "update", url: #"{"kind":"equal","value":"/r\u00e9"}"#).status, 201)
        XCTAssertEqual(try action("nf4", "update", url: #"{"kind":"equal","value":"/re\u0301"}"#).status, 201)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf4").count, 1)
        XCTAssertEqual(try action("nf4", "remove", url: #"{"kind":"equal","value":"/r\u00e9"}"#).status, 204)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf4").count, 0)
    }

    /// Header `regexp` values and body patterns other than `json` are compared exactly too (a
    /// body `equal` compares bytes, a `jsonPath` member names byte for byte); a header `equal`
    /// value by canonical equivalence, as it matches.
    func testHeaderExpressionsAndBodyValuesAreComparedExactly() throws {
        let url = #"{"kind":"equal","value":"/h"}"#
        func headers(_ kind: String, _ value: String) -> String {
            #","headers":{"X-A":{"kind":"\#(kind)","value":"\#(value)"}}"#
        }
        func update(_ tenant: String, _ extra: String) throws -> Int {
            try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"POST","url":\#(url)\#(extra)},"response":{"status":200}}"#,
                headers: [("X-Catbird-Parallel-Id", tenant)]
            ).status
        }
        XCTAssertEqual(try update("nf5", headers("regexp", #"^r\u00e9$"#)), 201)
        XCTAssertEqual(try update("nf5", headers("regexp", #"^re\u0301$"#)), 201)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf5").count, 2)

        XCTAssertEqual(try update("nf6", headers("equal", #"r\u00e9"#)), 201)
        XCTAssertEqual(try update("nf6", headers("equal", #"re\u0301"#)), 201)
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf6").count, 1)

        for body in [#"{"kind":"equal","value":"r\u00e9"}"#, #"{"kind":"equal","value":"re\u0301"}"#,
                     #"{"kind":"jsonPath","value":"$.\u00e9"}"#, #"{"kind":"jsonPath","value":"$.e\u0301"}"#,
                     #"{"kind":"jsonPath","value":"$.a","equalTo":"\u00e9"}"#, #"{"kind":"jsonPath","value":"$.a","equalTo":"e\u0301"}"#,
                     #"{"kind":"json","value":"{\"\u00e9\":1}"}"#, #"{"kind":"json","value":"{\"e\u0301\":1}"}"#] {
            XCTAssertEqual(try update("nf7", #","body":\#(body)"#), 201, body)
        }
        XCTAssertEqual(try E2E.mocks(client, tenant: "nf7").count, 8)
    }
}
