import CatbirdTestSupport
import Foundation
import XCTest

/// A mock added behind a catch-all of its tenant (an earlier mock of the same method, without
/// header or body patterns or a limit, whose url pattern every target matches) is kept, as
/// Catbird 0.11 keeps it, and its 201 names the catch-all (docs/protocol.md#mocks-that-can-never-match).
final class CatchAllShadowWarningTests: ServerTestCase {
    private func update(_ pattern: String, tenant: String? = nil, response: String = #"{"status":200,"headers":{}}"#) throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":\#(response)}"#,
            headers: E2E.tenantHeader(tenant))
    }

    private func firstID(_ tenant: String?) throws -> Int {
        try XCTUnwrap(JSONNumber.int(try E2E.mocks(client, tenant: tenant).first?["id"]))
    }

    /// Regression (tester finding try10a F13), the exact mocks: `GET wildcard "*"` then
    /// `GET equal "/x"`; the second got a bare 201 and `GET /x` was always the catch-all's.
    func testAMockAddedBehindAWildcardCatchAllGetsAWarningNamingIt() throws {
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{}}"#).status, 201)
        let catchAll = try firstID(nil)
        let added = try update(
            #"{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{}}"#, response: #"{"status":201,"headers":{}}"#)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [
                #"mock \#(catchAll) (GET wildcard "*"), added before this one, matches every GET request of this tenant and "#
                    + "has no limit, so it answers every request this mock could match: this mock is never served while it is "
                    + "there (the first mock added wins, Catbird 0.11's order; docs/matching.md#match-order); add the catch-all "
                    + "after the specific mocks (remove it and add it again), or give it a limit"
            ])
        XCTAssertEqual(try client.request("GET", "/x").status, 200, "the catch-all answers: the warning is true")
    }

    /// A warning names the earlier mock's pattern with its long values cut, as near misses do
    /// (the kind of tester finding tester48b-F1: a reason that echoed a pattern whole).
    func testTheWarningCutsTheEarlierMocksLongValues() throws {
        let long = String(repeating: "v", count: 5_000)
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"wildcard","value":"*\#(long)*"},"headers":{}}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"regexp","value":".*"},"headers":{}}"#).status, 201)
        let added = try update(#"{"method":"GET","url":{"kind":"equal","value":"/x"},"headers":{}}"#)
        let warning = try XCTUnwrap((added.object["warnings"] as? [String])?.first, added.text)
        XCTAssertTrue(warning.contains(#"(GET regexp ".*"), added before this one"#), warning)
        let broad = try update(#"{"method":"POST","url":{"kind":"equal","value":"/\#(long)"},"headers":{}}"#)
        XCTAssertEqual(broad.status, 201, broad.text)
        let behind = try update(#"{"method":"POST","url":{"kind":"equal","value":"/\#(long)"},"headers":{"X-A":{"kind":"equal","value":"1"}}}"#)
        let shadowed = try XCTUnwrap((behind.object["warnings"] as? [String])?.first, behind.text)
        XCTAssertTrue(shadowed.contains(#"(POST equal "/"# + String(repeating: "v", count: 199) + #"… (5001 bytes)")"#), shadowed)
        XCTAssertLessThan(shadowed.utf8.count, 1_000, shadowed)
    }

    /// A regexp catch-all (`.*`, `^.*$`) of a shard warns that shard's later mock, headers and
    /// body patterns on the later mock notwithstanding.
    func testARegexpCatchAllWarnsItsTenantsLaterMocks() throws {
        for (index, expression) in [".*", "^.*$"].enumerated() {
            let tenant = "rx\(index)"
            XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"regexp","value":"\#(expression)"},"headers":{}}"#, tenant: tenant).status, 201)
            let added = try update(
                #"{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{"X-A":{"kind":"equal","value":"1"}},"body":{"kind":"contains","value":"john"}}"#,
                tenant: tenant)
            XCTAssertEqual(added.status, 201, added.text)
            let warnings = added.object["warnings"] as? [String] ?? []
            XCTAssertEqual(warnings.count, 1, added.text)
            XCTAssertTrue(warnings.first?.hasPrefix(#"mock \#(try firstID(tenant)) (POST regexp "\#(expression)")"#) == true, added.text)
        }
    }

    /// No warning where the earlier mock does not answer everything, or not before this one:
    /// another method, a limit, a header or body pattern, a url with literal text, another
    /// tenant's catch-all (a shard's own mocks come before the default tenant's), or an update
    /// of the catch-all itself.
    func testNoWarningWhereTheEarlierMockDoesNotAlwaysWin() throws {
        let notCatchAlls = [
            #"{"method":"POST","url":{"kind":"wildcard","value":"*"},"headers":{}}"#,
            #"{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{"X-A":{"kind":"equal","value":"1"}}}"#,
            #"{"method":"GET","url":{"kind":"regexp","value":".*"},"headers":{},"body":{"kind":"contains","value":"a"}}"#,
            // Literal text that /api/7 does not have (one that it has, `/api/*` or `\d+`, is a
            // broader mock: testAnEqualURLMockBehindAWildcardOrRegexpThatMatchesItGetsAWarning).
            #"{"method":"GET","url":{"kind":"wildcard","value":"/api/x*"},"headers":{}}"#,
            #"{"method":"GET","url":{"kind":"regexp","value":"\\d{2}"},"headers":{}}"#,
        ]
        for pattern in notCatchAlls { XCTAssertEqual(try update(pattern, tenant: "s").status, 201) }
        XCTAssertEqual(
            try update(#"{"method":"GET","url":{"kind":"regexp","value":""},"headers":{}}"#, tenant: "s",
                       response: #"{"status":200,"headers":{},"limit":1}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"wildcard","value":"**"},"headers":{}}"#).status, 201)
        for tenant in ["s", "other"] {
            let added = try update(#"{"method":"GET","url":{"kind":"equal","value":"/api/7"},"headers":{}}"#, tenant: tenant)
            XCTAssertEqual(added.status, 201, added.text)
            XCTAssertEqual(added.text, "", "\(tenant): no warning")
        }
        let again = try update(#"{"method":"GET","url":{"kind":"wildcard","value":"**"},"headers":{}}"#)
        XCTAssertEqual(again.text, "", "the catch-all replaced in place shadows nothing before it")
    }
}

/// A mock with header or body patterns added behind an earlier mock of its tenant with the same
/// method and url pattern but neither (WireMock's "generic stub first, specific later") is kept,
/// and its 201 names the earlier one (docs/protocol.md#mocks-that-can-never-match).
final class BroaderMockShadowWarningTests: ServerTestCase {
    private static let tenant = [("X-Catbird-Parallel-Id", "t18-bp2")]

    private func update(_ pattern: String, response: String = #"{"status":200}"#) throws -> RawResponse {
        try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":\#(response)}"#, headers: Self.tenant)
    }

    /// Regression (tester finding T18A-F9): `update POST equal /bp` (no body pattern), then
    /// `update POST equal /bp body json …`: two bare 201s, and the second mock was never served.
    func testASpecificMockAddedBehindTheGenericOneOfItsURLGetsAWarningNamingIt() throws {
        XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"equal","value":"/bp"}}"#, response: #"{"status":200,"body":"b2xk"}"#).status, 201)
        let generic = try XCTUnwrap(JSONNumber.int(try E2E.mocks(client, tenant: "t18-bp2").first?["id"]))
        let added = try update(
            #"{"method":"POST","url":{"kind":"equal","value":"/bp"},"body":{"kind":"json","value":"{\"a\":1, \"b\":2}"}}"#,
            response: #"{"status":200,"body":"bmV3"}"#)
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(
            added.object["warnings"] as? [String],
            [
                #"mock \#(generic) (POST equal "/bp"), added before this one, has the same method and url pattern, no header "#
                    + "or body pattern and no limit, so it answers every request this mock could match: this mock is never "
                    + "served while it is there (the first mock added wins, Catbird 0.11's order; docs/matching.md#match-order); "
                    + "add the broader mock after the specific ones (remove it and add it again), or give it a limit"
            ])
        let served = try client.request("POST", "/bp", headers: Self.tenant, body: Array(#"{"a":1,"b":2}"#.utf8))
        XCTAssertEqual(served.text, "old", "the generic mock answers: the warning is true")

        // A header pattern behind a wildcard url of the same value: the same warning.
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"wildcard","value":"/u/*"}}"#).status, 201)
        let withHeader = try update(#"{"method":"GET","url":{"kind":"wildcard","value":"/u/*"},"headers":{"X-A":{"kind":"equal","value":"1"}}}"#)
        XCTAssertEqual((withHeader.object["warnings"] as? [String])?.count, 1, withHeader.text)
    }

    /// Regression (tester finding tester50b-F5), the exact cases: `GET wildcard /api/*`, then
    /// `GET equal /api/users`, two bare 201s, and the second mock was never served; the same
    /// with `regexp ^/v2/` and `equal /v2/users`. The 201 now names the earlier mock.
    func testAnEqualURLMockBehindAWildcardOrRegexpThatMatchesItGetsAWarning() throws {
        for (broad, equal) in [(#""kind":"wildcard","value":"/api/*""#, "/api/users"), (#""kind":"regexp","value":"^/v2/""#, "/v2/users")] {
            XCTAssertEqual(try update(#"{"method":"GET","url":{\#(broad)},"headers":{}}"#, response: #"{"status":200,"body":"YnJvYWQ="}"#).status, 201)
            let added = try update(#"{"method":"GET","url":{"kind":"equal","value":"\#(equal)"},"headers":{}}"#)
            XCTAssertEqual(added.status, 201, added.text)
            let warning = (added.object["warnings"] as? [String])?.first ?? ""
            XCTAssertTrue(warning.contains("added before this one, matches this mock's url and method, has no header or body pattern"), added.text)
            XCTAssertEqual(try client.request("GET", equal, headers: Self.tenant).text, "broad", "the warning is true")
        }
        // Another method, a limit, or a url the earlier pattern does not match: no warning.
        XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"equal","value":"/api/users"}}"#).text, "")
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"equal","value":"/other/users"}}"#).text, "")
        XCTAssertEqual(
            try update(#"{"method":"PUT","url":{"kind":"wildcard","value":"/p/*"}}"#, response: #"{"status":200,"limit":1}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"PUT","url":{"kind":"equal","value":"/p/x"}}"#).text, "")
    }

    /// Regression (tester finding tester58b-F1, its sequence, docs/matching.md#sequences): three
    /// steps of `GET /s3` (no header pattern, `limit` 1; `Host wildcard "*"`, `limit` 1; `Host
    /// regexp ""`, no limit) run once, then step 2 added again to start over: a bare 201, and
    /// `GET /s3` kept getting step 3's 200. The 201 now names step 3; adding the first steps,
    /// and a step with a limit of its own before a limited one, is still quiet.
    func testAStepAddedBehindASequencesLastStepGetsAWarning() throws {
        let step1 = #"{"method":"GET","url":{"kind":"equal","value":"/s3"}}"#
        let step2 = #"{"method":"GET","url":{"kind":"equal","value":"/s3"},"headers":{"Host":{"kind":"wildcard","value":"*"}}}"#
        let step3 = #"{"method":"GET","url":{"kind":"equal","value":"/s3"},"headers":{"Host":{"kind":"regexp","value":""}}}"#
        XCTAssertEqual(try update(step1, response: #"{"status":503,"limit":1}"#).text, "")
        XCTAssertEqual(try update(step2, response: #"{"status":502,"limit":1}"#).text, "")
        XCTAssertEqual(try update(step3, response: #"{"status":200}"#).text, "")
        let statuses = try (0..<3).map { _ in try client.request("GET", "/s3", headers: Self.tenant).status }
        XCTAssertEqual(statuses, [503, 502, 200])
        let last = try XCTUnwrap(
            try E2E.mocks(client, tenant: "t18-bp2").first { (($0["pattern"] as? [String: Any])?["headers"] as? [String: Any])?["Host"] != nil })
        let again = try update(step2, response: #"{"status":502,"limit":1}"#)
        XCTAssertEqual(again.status, 201, again.text)
        XCTAssertEqual(
            again.object["warnings"] as? [String],
            [
                #"mock \#(JSONNumber.int(last["id"]) ?? -1) (GET equal "/s3" Host: regexp ""), added before this one, has the "#
                    + "same method and url pattern, a Host pattern every request's Host matches, no body pattern and no limit, so it "
                    + "answers every request this mock could match: this mock is never served while it is there (the first mock "
                    + "added wins, Catbird 0.11's order); to run a sequence again, remove its steps (or removeAll) and add them "
                    + "again in order (docs/matching.md#sequences)"
            ], again.text)
        XCTAssertEqual(try client.request("GET", "/s3", headers: Self.tenant).status, 200, "the last step answers: the warning is true")
    }

    /// No warning where the earlier mock does not always win: it has a limit, another method,
    /// another url value, a header pattern of its own; or the generic mock is added after the
    /// specific one (then the specific one answers first). (A `wildcard` `/w` before an
    /// `equal` `/w` always wins: ``testAnEqualURLMockBehindAWildcardOrRegexpThatMatchesItGetsAWarning()``.)
    func testNoWarningWhereTheGenericMockDoesNotAlwaysWin() throws {
        let body = #""body":{"kind":"contains","value":"a"}"#
        XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"equal","value":"/limited"}}"#, response: #"{"status":200,"limit":2}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"GET","url":{"kind":"equal","value":"/m"}}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"equal","value":"/h"},"headers":{"X-A":{"kind":"equal","value":"1"}}}"#).status, 201)
        XCTAssertEqual(try update(#"{"method":"POST","url":{"kind":"equal","value":"/later"},\#(body)}"#).status, 201)
        for url in [#""kind":"equal","value":"/limited""#, #""kind":"equal","value":"/m""#, #""kind":"equal","value":"/h""#] {
            let added = try update(#"{"method":"POST","url":{\#(url)},"headers":{"X-B":{"kind":"equal","value":"2"}},\#(body)}"#)
            XCTAssertEqual(added.status, 201, added.text)
            XCTAssertEqual(added.text, "", url)
        }
        let generic = try update(#"{"method":"POST","url":{"kind":"equal","value":"/later"}}"#)
        XCTAssertEqual(generic.text, "", "added after the specific mock: no warning")
    }
}
