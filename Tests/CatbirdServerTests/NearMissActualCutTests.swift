import CatbirdTestSupport
import Foundation
import XCTest

/// A 404's reason quotes the request's url and header values cut as it quotes a pattern's and a
/// body (their first 200 bytes, then `… (N bytes)`), and no 404 reason passes 8,000 bytes
/// (docs/matching.md#near-misses, docs/protocol.md#errors). Tester finding T19B-F15: an
/// 8,000-byte url gave an 8,401-byte reason, a 20,000-byte header value a 20,175-byte one.
final class NearMissActualCutTests: ServerTestCase {
    /// Repro 1, the exact input: the default tenant's mock `GET equal "/dflt"` and a request for
    /// `/` + 8,000 `u`; then the same from a shard with a 1,000-byte parallel id (8,429 bytes).
    /// The url field's `actual` keeps the whole target (data, not text for a person).
    func testALongURLIsCutInTheReasonsGotClause() throws {
        try E2E.addMock(client, url: "/dflt", body: "d")
        let target = "/" + String(repeating: "u", count: 8_000)
        let cut = "/" + String(repeating: "u", count: 199) + "… (8001 bytes)"
        for tenant in [nil, String(repeating: "p", count: 1_000)] {
            let miss = try client.request("GET", target, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(miss.status, 404, String(miss.text.prefix(300)))
            let reason = miss.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains(#"url differs (expected equal "/dflt", got "\#(cut)")"#), reason)
            XCTAssertLessThan(reason.utf8.count, 700, reason)
            let fields = (miss.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]] ?? []
            let url = fields.first { $0["field"] as? String == "url" }
            XCTAssertEqual(url?["actual"] as? String, target, "the field keeps the whole target")
        }
    }

    /// tester48a-F5, its request: a method of 20,000 `X` (a token, so legal) made the reason the
    /// method and nothing else, cut at 8,000 bytes: the tenant, the closest mock and what
    /// differed were gone. The method is cut as the target is.
    func testALongMethodIsCutInTheReason() throws {
        try E2E.addMock(client, url: "/x", body: "x")
        let method = String(repeating: "X", count: 20_000)
        let answer = try E2E.exchange(server, "\(method) /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 404 "), String(answer.prefix(100)))
        let body = try XCTUnwrap(answer.range(of: "\r\n\r\n")).upperBound
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer[body...].utf8)) as? [String: Any])
        let reason = object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("no mock matched " + String(repeating: "X", count: 200) + "… /x in the default tenant"), String(reason.prefix(300)))
        XCTAssertTrue(reason.contains(#"the closest is mock"#), String(reason.prefix(600)))
        XCTAssertLessThan(reason.utf8.count, 1_000, String(reason.prefix(300)))
    }

    /// tester49a-F2, its mock and wait: four 3,000-byte header names (five of 1,900 in a wait)
    /// were quoted whole, so a 404's reason and a wait's 408 were the names and the 8,000-byte
    /// cap; what differed, and what arrived, were gone. Names are cut like values now.
    func testLongHeaderNamesAreCutInTheReasons() throws {
        let names = (0..<4).map { "X-\($0)-" + String(repeating: "N", count: 3_000) }
        try E2E.addMock(client, tenant: "hn", url: "/hn", headerPatterns: Dictionary(uniqueKeysWithValues: names.map { ($0, ("equal", "v")) }),
                        body: "h")
        let miss = try client.request("GET", "/hn", headers: E2E.tenantHeader("hn"))
        XCTAssertEqual(miss.status, 404, String(miss.text.prefix(300)))
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertLessThan(reason.utf8.count, 4_000, String(reason.prefix(500)))
        XCTAssertTrue(reason.contains(#"X-0-"# + String(repeating: "N", count: 196) + "… (3004 bytes)"), String(reason.prefix(800)))
        XCTAssertTrue(reason.contains("got none"), String(reason.prefix(1500)))
        let wait = try client.json(
            "POST", "/catbird/api/requests/wait",
            #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/hn"},"headers":{"# + names.map { #""\#($0)":{"kind":"equal","value":"v"}"# }
                .joined(separator: ",") + #"}},"timeout":0}"#,
            headers: E2E.tenantHeader("hn"))
        XCTAssertEqual(wait.status, 408, String(wait.text.prefix(300)))
        let waited = wait.object["reason"] as? String ?? ""
        XCTAssertTrue(waited.hasSuffix("after entry 0 the journal has: GET /hn → 404"), String(waited.suffix(300)))
    }

    /// Repro 2, the exact input: shard `long`'s mock `GET equal "/hdr"` with the header pattern
    /// `X-Long: equal "abc"`, and a request carrying `X-Long` of 20,000 `v`.
    func testALongHeaderValueIsCutInTheReasonsGotClause() throws {
        try E2E.addMock(client, tenant: "long", url: "/hdr", headerPatterns: ["X-Long": ("equal", "abc")], body: "h")
        let value = String(repeating: "v", count: 20_000)
        let miss = try client.request("GET", "/hdr", headers: E2E.tenantHeader("long") + [("X-Long", value)])
        XCTAssertEqual(miss.status, 404, String(miss.text.prefix(300)))
        let reason = miss.object["reason"] as? String ?? ""
        let cut = String(repeating: "v", count: 200) + "… (20000 bytes)"
        XCTAssertTrue(reason.contains(#"header X-Long differs (expected equal "abc", got "\#(cut)")"#), reason)
        XCTAssertLessThan(reason.utf8.count, 600, reason)
    }

    /// The reason as a whole is bound as every error's is: a mock with 18 header patterns of
    /// 500-byte names, none sent, names each in its summary and in a `missing` clause (about 19 KB
    /// of reason); the reason is its first 8,000 bytes and `…`, in a body that is still JSON.
    func testA404ReasonIsCutAt8000Bytes() throws {
        let names = (10..<28).map { "X-\($0)" + String(repeating: "n", count: 496) }
        try E2E.addMock(
            client, tenant: "cap", url: "/cap", headerPatterns: Dictionary(uniqueKeysWithValues: names.map { ($0, ("equal", "a")) }),
            body: "c")
        let miss = try client.request("GET", "/cap", headers: E2E.tenantHeader("cap"))
        XCTAssertEqual(miss.status, 404, String(miss.text.prefix(300)))
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertEqual(reason.utf8.count, 8_000 + "…".utf8.count, String(reason.suffix(200)))
        XCTAssertTrue(reason.hasPrefix(#"no mock matched GET /cap in tenant "cap"; the closest is mock "#), String(reason.prefix(200)))
        XCTAssertTrue(reason.hasSuffix("…"), String(reason.suffix(200)))
        let fields = (miss.object["nearMisses"] as? [[String: Any]])?.first?["fields"] as? [[String: Any]] ?? []
        XCTAssertEqual(fields.filter { $0["verdict"] as? String == "missing" }.count, 18, "the near miss is whole")
        XCTAssertEqual(miss.object["tenant"] as? String, "cap")
    }
}
