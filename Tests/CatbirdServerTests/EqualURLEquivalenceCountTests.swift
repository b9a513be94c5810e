import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// docs/matching.md#request-matching and docs/protocol.md#count: an `equal` url or header value
/// matches by Swift's `==` (Unicode canonical equivalence, as Catbird 0.11's matcher), in mock
/// matching and replacement and in the journal's count, find and wait alike (try7b F4: one mock
/// answered both byte forms of `/café` while count of its `equal` pattern, compared as bytes in
/// SQL, said 1). The tester's exact inputs (`t_unicode_url.py`), raw bytes on the wire.
final class EqualURLEquivalenceCountTests: XCTestCase {
    private static let nfc = "/caf\u{E9}"
    private static let nfd = "/cafe\u{301}"

    /// tester39a-F9, the exact requests: a header pattern named `X-\u{212A}ey` (the KELVIN SIGN, a
    /// name no request can send, which `update` refuses) counted and waited for the request that
    /// sent `X-Key`: the journal's header lookup found the name by canonical equivalence.
    func testAHeaderNameIsLookedUpByItsBytesNotByCanonicalEquivalence() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        XCTAssertEqual(try client.request("GET", "/hk", headers: E2E.tenantHeader("hk2") + [("X-Key", "v")]).status, 404)
        func pattern(_ name: String) -> String {
            #"{"method":"GET","url":{"kind":"equal","value":"/hk"},"headers":{\#(JSONText.string(name)):{"kind":"equal","value":"v"}}}"#
        }
        XCTAssertEqual(try E2E.count(client, tenant: "hk2", patternJSON: pattern("X-\u{212A}ey")), 0)
        XCTAssertEqual(try E2E.count(client, tenant: "hk2", patternJSON: pattern("x-KEY")), 1, "ASCII case is still folded")
        let waited = try client.json(
            "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern("X-\u{212A}ey")),"timeout":0}"#, headers: E2E.tenantHeader("hk2"))
        XCTAssertNotEqual(waited.status, 200, "no request sent that name: \(waited.text)")
    }

    func testCountFindAndWaitOfAnEqualURLCountWhatTheMockAnswered() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = "uu"
        try E2E.addMock(client, tenant: tenant, url: Self.nfc, body: "nfc")
        try E2E.addMock(client, tenant: tenant, url: Self.nfd, body: "nfd")
        let mocks = try E2E.mocks(client, tenant: tenant)
        XCTAssertEqual(mocks.count, 1, "the second update replaced the first: one pattern (0.11's ==)")
        for url in [Self.nfc, Self.nfd] {
            let answer = try client.request("GET", url, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, "nfd")
        }
        XCTAssertEqual(JSONNumber.int(try E2E.mocks(client, tenant: tenant).first?["hits"]), 2)
        for url in [Self.nfc, Self.nfd] {
            let pattern = E2E.jsonText(E2E.pattern(url: url))
            XCTAssertEqual(try E2E.count(client, tenant: tenant, patternJSON: pattern), 2, "count equal \(url.unicodeScalars.map(\.value))")
            let found = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(found.status, 200, found.text)
            let urls = (found.object["requests"] as? [[String: Any]] ?? []).map { ($0["url"] as? String).map { Array($0.utf8) } }
            XCTAssertEqual(urls, [Array(Self.nfc.utf8), Array(Self.nfd.utf8)])
            let waited = try client.json(
                "POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0,"since":1}"#, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(waited.status, 200, waited.text)
            XCTAssertEqual((waited.object["url"] as? String).map { Array($0.utf8) }, Array(Self.nfd.utf8))
        }
    }

    /// An ASCII `equal` value and a request-target of other bytes that is canonically equivalent
    /// (KELVIN SIGN is `K`): the case the SQL's byte prefilter must hand to the Swift matcher; a
    /// url that differs in case stays out (`equal` is case-sensitive).
    func testAnASCIIEqualURLCountsItsEquivalentNonASCIIRequests() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/K", body: "kk")
        for url in ["/K", "/\u{212A}", "/k"] { _ = try client.request("GET", url) }
        let hits = try E2E.mocks(client, tenant: nil).first?["hits"]
        XCTAssertEqual(JSONNumber.int(hits), 2, "the mock answered /K and /\\u{212A}")
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: E2E.jsonText(E2E.pattern(url: "/K"))), 2)
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: E2E.jsonText(E2E.pattern(url: "/\u{212A}"))), 2)
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: E2E.jsonText(E2E.pattern(url: "/k"))), 1)
        // With a header pattern too (the function then reads every row the prefilter leaves).
        let withHeader = E2E.jsonText(E2E.pattern(url: "/K", headers: ["Host": (kind: "equal", value: "127.0.0.1")]))
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: withHeader), 2)
    }

    /// An `equal` header value counts both byte forms, as the mock matched them.
    func testAnEqualHeaderValueCountsBothByteForms() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/h", headerPatterns: ["X-N": (kind: "equal", value: "caf\u{E9}")], body: "hh")
        for value in ["caf\u{E9}", "cafe\u{301}"] {
            let answer = try client.request("GET", "/h", headers: [("X-N", value)])
            XCTAssertEqual(answer.status, 200)
        }
        for value in ["caf\u{E9}", "cafe\u{301}"] {
            let pattern = E2E.jsonText(E2E.pattern(url: "/h", headers: ["X-N": (kind: "equal", value: value)]))
            XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: pattern), 2)
        }
    }
}
