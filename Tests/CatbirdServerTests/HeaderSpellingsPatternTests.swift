import CatbirdTestSupport
import Foundation
import XCTest

/// A pattern may name one header under two spellings (`X-Token` and `x-token`): names are
/// case-insensitive, so both patterns must match that header's first value
/// (docs/matching.md#request-matching), as in Catbird 0.11, which accepts such patterns. Every
/// route takes it: `update` as `count`, `find`, `wait` and `remove` do.
final class HeaderSpellingsPatternTests: ServerTestCase {
    private let tenant = [("X-Catbird-Parallel-Id", "hs2")]

    /// The finding's pattern (`X-Token` equal `abc`, `x-token` regexp `^a`) as JSON, with
    /// `second` as the second spelling's regexp.
    private static func pattern(second: String = "^a") -> String {
        #"{"method":"GET","url":{"kind":"equal","value":"/h"},"headers":{"X-Token":{"kind":"equal","value":"abc"},"#
            + #""x-token":{"kind":"regexp","value":"\#(second)"}}}"#
    }

    /// Regression (tester finding tester23b-F2): `update` refused the finding's pattern with 400
    /// ("… names the header "X-Token" twice …; keep one") while count, find, wait and remove took
    /// it and applied the documented rule. Now it is added (a plain 201, no warning: a request
    /// can match it), answers a request whose first `X-Token` matches both, counts it, and is
    /// removed by the same pattern.
    func testUpdateTakesAPatternNamingOneHeaderUnderTwoSpellings() throws {
        let added = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(Self.pattern()),"response":{"status":200}}"#, headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertNil(added.object["warnings"], added.text)

        XCTAssertEqual(try client.request("GET", "/h", headers: tenant + [("X-Token", "abc")]).status, 200)
        XCTAssertEqual(try client.request("GET", "/h", headers: tenant + [("X-Token", "abd")]).status, 404, "equal \"abc\" fails")
        XCTAssertEqual(try E2E.count(client, tenant: "hs2", patternJSON: Self.pattern()), 1)
        XCTAssertEqual(try E2E.count(client, tenant: "hs2", patternJSON: Self.pattern(second: "^b")), 0, "both must match")

        let removed = try client.json("POST", "/catbird/api/mocks", #"{"type":"remove","pattern":\#(Self.pattern())}"#, headers: tenant)
        XCTAssertEqual(removed.status, 204, removed.text)
        XCTAssertNil(removed.header("X-Catbird-Warning"), "it removed the mock")
        XCTAssertEqual(try client.request("GET", "/h", headers: tenant + [("X-Token", "abc")]).status, 404)
    }

    /// Two different `equal` values under two spellings (try5 finding 8b's `X-A: 1` and `x-a: 2`,
    /// refused with 400 since) can never both match the header's one first value: kept, as 0.11
    /// keeps it, with a warning, like every mock no request can match
    /// (docs/protocol.md#mocks-that-can-never-match); a count with that pattern says so too.
    func testTwoDifferentEqualValuesUnderTwoSpellingsAreKeptWithAWarning() throws {
        let pattern = #"{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{"X-A":{"kind":"equal","value":"1"},"x-a":{"kind":"equal","value":"2"}}}"#
        let warning = #"'pattern.headers' names the header "X-A" twice (as "X-A" and "x-a") with two different equal values ("1" and "2"): "#
            + "header names are case-insensitive, so both test the header's first value, which cannot equal both: no request can match "
        let added = try client.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#, headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(added.object["warnings"] as? [String], [warning + "this mock; keep one"], added.text)
        XCTAssertEqual(try client.request("GET", "/x", headers: tenant + [("X-A", "1")]).status, 404)

        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, count.text)
        XCTAssertEqual(count.object["warnings"] as? [String], [warning + "this pattern; keep one"], count.text)

        // The same value twice is no slip.
        let same = try client.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/y"},"headers":{"X-A":{"kind":"equal","value":"1"},"x-a":{"kind":"equal","value":"1"}}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(same.status, 201, same.text)
        XCTAssertNil(same.object["warnings"], same.text)
        XCTAssertEqual(try client.request("GET", "/y", headers: tenant + [("x-A", "1")]).status, 200)
    }
}
