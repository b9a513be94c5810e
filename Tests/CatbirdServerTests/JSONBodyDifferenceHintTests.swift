import CatbirdTestSupport
import Foundation
import XCTest

/// try9a F7: a 404 whose near miss fails a `json` or `jsonPath` body pattern names where the
/// JSON differs (docs/matching.md#near-misses, ``JSONDifference``), not only both bodies cut
/// after 200 bytes.
final class JSONBodyDifferenceHintTests: ServerTestCase {
    private func update(_ tenant: String, _ json: String) throws {
        let added = try client.json("POST", "/catbird/api/mocks", json, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(added.status, 201, added.text)
    }

    private func mockID(_ tenant: String, url: String) throws -> Int {
        let mock = try E2E.mocks(client, tenant: tenant).first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == url }
        return try XCTUnwrap(JSONNumber.int(mock?["id"]))
    }

    private func reason(_ tenant: String, _ target: String, _ body: String) throws -> String {
        let miss = try client.request("POST", target, headers: E2E.tenantHeader(tenant), body: Array(body.utf8))
        XCTAssertEqual(miss.status, 404, miss.text)
        return try XCTUnwrap(miss.object["reason"] as? String)
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }

    /// An order of a user and 40 items written as Python's `json.dumps` writes it, `qty` of
    /// item `i` being `i`, but item 33's `qty` given as `qty33`.
    private static func order(qty33: Int) -> String {
        let items = (0..<40).map { #"{"sku": "S\#($0)", "qty": \#($0 == 33 ? qty33 : $0)}"# }.joined(separator: ", ")
        return #"{"user": {"id": 1207, "name": "Ann Example", "email": "ann@example.com", "tier": "gold"}, "items": [\#(items)]}"#
    }

    /// tester42a-F3, the finding's mocks: `POST /api/login` with a `jsonPath` body pattern beside
    /// `POST /api/upload` with `contains "PNG"`; an image upload to `/api/upload` got `mock 50's
    /// jsonPath "$.user": the body is not JSON`, about a mock of another url. The body hint is
    /// now for a near miss whose method and url match only.
    func testTheBodyHintIsNotForANearMissOfAnotherURL() throws {
        try update("nm6", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/api/login"},"body":{"kind":"jsonPath","value":"$.user","equalTo":"john"}},"response":{"status":200}}"#)
        try update("nm6", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/api/upload"},"body":{"kind":"contains","value":"PNG"}},"response":{"status":200}}"#)
        let upload = try reason("nm6", "/api/upload", "GIF89a...")
        XCTAssertTrue(upload.contains(#"body differs (expected contains "PNG""#), upload)
        XCTAssertFalse(upload.contains("jsonPath"), upload)
        // The mock whose url it is still gets it.
        let login = try reason("nm6", "/api/login", "GIF89a...")
        XCTAssertTrue(login.contains(#"mock \#(try mockID("nm6", url: "/api/login"))'s jsonPath "$.user": the body is not JSON"#), login)
    }

    /// tester42a-F4, the finding's mocks: a `contains "café"` body pattern (NFC, as typed in
    /// Swift source) against the body `cafe` + U+0301 (NFD), and a `json` pattern holding
    /// `"g":"café"` against a body whose `g` is NFD. The reasons read `expected contains "café",
    /// got "café"` and `expected "café", got "café"`; now the code points show.
    func testABodyThatDiffersOnlyInUnicodeNormalizationIsSaidSo() throws {
        try update("nm5b", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/l"},"body":{"kind":"contains","value":"café"}},"response":{"status":200}}"#)
        let id = try mockID("nm5b", url: "/l")
        let contains = try reason("nm5b", "/l", "cafe\u{301}")
        XCTAssertTrue(
            contains.contains(#"; mock \#(id)'s body pattern contains "caf<U+00E9>" is in the body only as "cafe<U+0301>", the same text in another Unicode normalization form: body patterns compare bytes, so write it as the app sends it"#),
            contains)
        // Within a longer body; and an equal pattern.
        XCTAssertTrue(try reason("nm5b", "/l", "order: 2 cafe\u{301} latte").contains(#"is in the body only as "cafe<U+0301>""#))
        try update("nm5c", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/l"},"body":{"kind":"equal","value":"café"}},"response":{"status":200}}"#)
        XCTAssertTrue(try reason("nm5c", "/l", "cafe\u{301}").contains(#"body pattern equal "caf<U+00E9>" is the body only as "cafe<U+0301>""#))
        // Not for a body that differs as text too.
        XCTAssertFalse(try reason("nm5b", "/l", "cafe").contains("normalization"))
        XCTAssertFalse(try reason("nm5c", "/l", "cafe\u{301}s").contains("normalization"))

        try update("nm5j", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"body":{"kind":"json","value":"{\"g\":\"café\"}"}},"response":{"status":200}}"#)
        let json = try reason("nm5j", "/j", "{\"g\":\"cafe\u{301}\"}")
        XCTAssertTrue(
            json.contains(#"'s json differs from the body at $.g: expected "caf\u00E9", got "cafe\u0301" (the same text in another Unicode normalization form: JSON strings are compared code point by code point)"#),
            json)
    }

    /// Tester finding tester45a-F2, its patterns: a `jsonPath` `equalTo` of `"café"` (NFC)
    /// against an NFD body read `the body has "café" there, not "café"`; a `json` key `café`
    /// against an NFD key read `expected 1, got nothing (no such key)`; and a long `json`
    /// string, cut before its difference, read the same cut text twice. Each now shows the code
    /// points and says why.
    func testJSONPathKeysAndLongStringsInAnotherNormalizationFormAreSaidSo() throws {
        let nfd = "cafe\u{301}"
        try update("nfc-jp", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/b"},"body":{"kind":"jsonPath","value":"$.n","equalTo":"café"}},"response":{"status":200}}"#)
        let path = try reason("nfc-jp", "/b", #"{"n":"\#(nfd)"}"#)
        XCTAssertTrue(
            path.contains(#"'s jsonPath "$.n": the body has "cafe\u0301" (the same text in another Unicode normalization form: JSON strings are compared code point by code point) there, not "caf\u00E9""#),
            path)
        try update("nfc-key", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/k"},"body":{"kind":"json","value":"{\"café\":1}"}},"response":{"status":200}}"#)
        let key = try reason("nfc-key", "/k", #"{"\#(nfd)":1}"#)
        XCTAssertTrue(
            key.contains(#"expected 1, got nothing (the body has the key "cafe\u0301", "caf\u00E9" in another Unicode normalization form: keys are compared code point by code point)"#),
            key)
        let long = String(repeating: "x", count: 100)
        try update("nfc-long", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/l"},"body":{"kind":"json","value":"{\"s\":\"\#(long)café\"}"}},"response":{"status":200}}"#)
        let cut = try reason("nfc-long", "/l", #"{"s":"\#(long)\#(nfd)"}"#)
        XCTAssertTrue(cut.contains("(the same text in another Unicode normalization form: JSON strings are compared code point by code point)"), cut)
    }

    /// The finding's input (the order's user object is ours; the shape, the 40 items and the
    /// one changed `qty` are the finding's): the reason cut both bodies after ~200 bytes, long
    /// before item 33.
    func testAJSONBodyNearMissNamesThePathThatDiffers() throws {
        let expected = Self.order(qty33: 33)
        XCTAssertGreaterThan(expected.utf8.count, 1000)
        try update("jdiff", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/order"},"body":{"kind":"json","value":\#(try Self.quoted(expected))}},"response":{"status":200}}"#)
        let id = try mockID("jdiff", url: "/order")
        XCTAssertEqual(try client.request("POST", "/order", headers: E2E.tenantHeader("jdiff"), body: Array(expected.utf8)).status, 200)
        let text = try reason("jdiff", "/order", Self.order(qty33: 99))
        XCTAssertTrue(text.hasSuffix("; mock \(id)'s json differs from the body at $.items[33].qty: expected 33, got 99"), text)
        // A key the body lacks, one it has extra, an array of another length, not JSON.
        try update("jdiff", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/small"},"body":{"kind":"json","value":"{\"a\":{\"b c\":[1,2]},\"z\":true}"}},"response":{"status":200}}"#)
        let small = try mockID("jdiff", url: "/small")
        XCTAssertTrue(try reason("jdiff", "/small", #"{"a":{"b c":[1,2]}}"#).hasSuffix(#"; mock \#(small)'s json differs from the body at $.z: expected true, got nothing (no such key)"#))
        XCTAssertTrue(try reason("jdiff", "/small", #"{"a":{"b c":[1,2]},"z":true,"y":null}"#).hasSuffix(#"; mock \#(small)'s json differs from the body at $.y: expected nothing (no such key), got null"#))
        XCTAssertTrue(try reason("jdiff", "/small", #"{"a":{"b c":[1,2,3]},"z":true}"#).hasSuffix(#"; mock \#(small)'s json differs from the body at $.a."b c": expected 2 items, got 3 items"#))
        XCTAssertTrue(try reason("jdiff", "/small", "a=1").hasSuffix("; mock \(small)'s json: the body is not JSON"))
    }

    /// The finding's addendum: mock `POST equal "/gql"` with `jsonPath "$.op" equalTo "upload"`;
    /// the reason showed the whole body, cut, and not the value at the path: on a 104 KB body
    /// not at all.
    func testAJSONPathNearMissNamesTheValueAtThePath() throws {
        try update("bigj", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/gql"},"body":{"kind":"jsonPath","value":"$.op","equalTo":"upload"}},"response":{"status":200}}"#)
        let id = try mockID("bigj", url: "/gql")
        let small = try reason("bigj", "/gql", #"{"user":{"name":"x"},"op":"download"}"#)
        XCTAssertTrue(small.hasSuffix(#"; mock \#(id)'s jsonPath "$.op": the body has "download" there, not "upload""#), small)
        let big = #"{"op": "download", "data": ["\#(String(repeating: "x", count: 104_000))"]}"#
        let large = try reason("bigj", "/gql", big)
        XCTAssertTrue(large.hasSuffix(#"; mock \#(id)'s jsonPath "$.op": the body has "download" there, not "upload""#), large)
        let absent = try reason("bigj", "/gql", #"{"user":{"name":"x"}}"#)
        XCTAssertTrue(absent.hasSuffix(#"; mock \#(id)'s jsonPath "$.op": the body has no such field"#), absent)
    }

    /// try11 T11-F4, the finding's mock and bodies `'{"a":'*N + '1' + '}'*N`: from N = 514 the
    /// body matched no `jsonPath "$.a"` and the 404 said only "body differs"; a `json` value
    /// 600 levels deep was refused as "must be JSON text". One limit, 512 levels, named by both.
    func testJSONNestedPastTheLimitIsNamedByThe404AndThe400() throws {
        try update("deep", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/dp"},"body":{"kind":"jsonPath","value":"$.a"}},"response":{"status":200}}"#)
        let id = try mockID("deep", url: "/dp")
        let objects = { (depth: Int) in String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth) }
        let hit = try client.request("POST", "/dp", headers: E2E.tenantHeader("deep"), body: Array(objects(512).utf8))
        XCTAssertEqual(hit.status, 200, hit.text)
        for depth in [513, 999, 2000] {
            let text = try reason("deep", "/dp", objects(depth))
            XCTAssertTrue(
                text.hasSuffix(#"; mock \#(id)'s jsonPath "$.a": the body nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)"#),
                text)
        }
        // A million levels (2 MB) is read up to the limit, and named the same way.
        let million = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        let millionReason = try reason("deep", "/dp", million)
        XCTAssertTrue(millionReason.hasSuffix("the body nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)"), millionReason)

        let arrays = { (depth: Int) in String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        try update("deep", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/arrays"},"body":{"kind":"json","value":"\#(arrays(512))"}},"response":{"status":200}}"#)
        let arraysID = try mockID("deep", url: "/arrays")
        XCTAssertEqual(try client.request("POST", "/arrays", headers: E2E.tenantHeader("deep"), body: Array(arrays(512).utf8)).status, 200)
        XCTAssertTrue(
            try reason("deep", "/arrays", arrays(600)).hasSuffix(
                "; mock \(arraysID)'s json: the body nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)"))
        for depth in [600, 1000] {
            let refused = try client.json(
                "POST", "/catbird/api/mocks",
                #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/refused"},"body":{"kind":"json","value":"\#(arrays(depth))"}},"response":{"status":200}}"#,
                headers: E2E.tenantHeader("deep"))
            XCTAssertEqual(refused.status, 400, refused.text)
            XCTAssertTrue(
                (refused.object["reason"] as? String ?? "").contains(
                    "'pattern.body.value' nests arrays and objects more than 512 levels deep; JSON is read to at most 512 levels (docs/matching.md#json-nesting)"),
                refused.text)
        }
    }

    /// Regression (tester finding tester28a-F1), the exact bodies: a number a 64-bit float
    /// cannot hold (`1e400`) or a lone surrogate escape was "not JSON" to `json` but JSON to
    /// `jsonPath` (SQLite's reading), whose 404 then said "the body has no such field" for a
    /// field that is there, even `$`, and whose `$.a` matched `{"a":1,"z":1e400}`. Both kinds
    /// now call such a body not JSON.
    func testAJSONPathCallsABodyNotJSONAsTheJSONKindDoes() throws {
        let cases: [(tenant: String, path: String, body: String)] = [
            ("f1a", "$", #"{"a":1e400}"#), ("f1c", "$.a", #"{"a":1,"z":1e400}"#), ("f1d", "$.a", #"{"a":-1e400}"#),
            ("f1e", "$.b.d", #"{"b":{"c":1e400,"d":2}}"#), ("f1f", "$.a", #"{"a":1e-400}"#),
            ("su1", "$.a", #"{"a":"\ud800"}"#), ("su2", "$.b", #"{"a":"\ud800","b":1}"#), ("su4", "$", #"{"a":"\udc00"}"#),
        ]
        for (tenant, path, body) in cases {
            try update(
                tenant,
                #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"headers":{},"body":{"kind":"jsonPath","value":\#(try Self.quoted(path))}},"response":{"status":200}}"#)
            let said = try reason(tenant, "/j", body)
            XCTAssertTrue(said.contains("jsonPath \(try Self.quoted(path)): the body is not JSON"), "\(body): \(said)")
            XCTAssertFalse(said.contains("no such field"), said)
        }
        // A pair of surrogate escapes is one character, and a number in range is JSON.
        try update(
            "su5", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/j"},"headers":{},"body":{"kind":"jsonPath","value":"$.a","equalTo":"\ud83d\ude00"}},"response":{"status":200}}"#)
        let pair = try client.request("POST", "/j", headers: E2E.tenantHeader("su5"), body: Array(#"{"a":"\ud83d\ude00","z":1e308}"#.utf8))
        XCTAssertEqual(pair.status, 200, pair.text)
    }

    /// Regression (tester finding tester28a-F6), the exact mock and body: the hint's path
    /// `$.x."\"q"` (a key holding `"`) was offered as the jsonPath syntax, and `update` refuses
    /// it (SQLite's paths cannot name such a key). The hint now says so; other keys' hints are
    /// unchanged.
    func testAJSONHintThroughAKeyHoldingAQuoteSaysNoJSONPathCanNameIt() throws {
        try update(
            "jh2", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/jh"},"body":{"kind":"json","value":"{\"x\":{\"\\\"q\":1}}"}},"response":{"status":200}}"#)
        let said = try reason("jh2", "/jh", #"{"x":{"\"q":2}}"#)
        XCTAssertTrue(
            said.contains(#"json differs from the body at $.x."\"q": expected 1, got 2 (a key there holds ", shown escaped: SQLite's JSON paths cannot name it, so no jsonPath can test it)"#),
            said)
        try update(
            "jh3", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/jh"},"body":{"kind":"json","value":"{\"x\":{\"a b\":1}}"}},"response":{"status":200}}"#)
        let plain = try reason("jh3", "/jh", #"{"x":{"a b":2}}"#)
        XCTAssertTrue(plain.contains(#"json differs from the body at $.x."a b": expected 1, got 2"#), plain)
        XCTAssertFalse(plain.contains("cannot name it"), plain)
    }
}
