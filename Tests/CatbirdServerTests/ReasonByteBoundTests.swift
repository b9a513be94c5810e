import CatbirdTestSupport
import Foundation
import XCTest

/// try7b F10: the bounds on what a reason or a near miss echoes counted Swift `Character`s
/// (extended grapheme clusters), and one character can be a letter with any number of
/// combining marks: an invalid regexp `(` + 100,000 × U+0301 was one character, echoed whole,
/// a 200,094-byte 400. Every such cut now counts UTF-8 bytes and falls between code points
/// (docs/protocol.md#errors).
final class ReasonByteBoundTests: XCTestCase {
    private static let marks = String(repeating: "\u{301}", count: 100_000)  // 200,000 bytes

    /// The finding's input: `update` in tenant `wc` with url `regexp` `(` + 100,000 marks (200,001
    /// bytes) is now refused by the 64 KiB bound on a pattern's expressions before ICU sees it
    /// (try9b F13), with a short reason of its own; the ICU refusal's reason is checked with
    /// `(` + 30,000 marks (60,001 bytes, under the bound).
    func testAnInvalidRegexpOfCombiningMarksGetsAShortReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tooLong = E2E.updateAction(url: "(" + Self.marks, kind: "regexp", body: Array("x".utf8))
        let refused = try client.json("POST", "/catbird/api/mocks", tooLong, headers: E2E.tenantHeader("wc"))
        E2E.assertError(refused, status: 400, reasonContains: "longer than the limit of 65536 bytes")
        XCTAssertLessThan(refused.body.count, 1_000, "the whole answer")
        let action = E2E.updateAction(url: "(" + String(repeating: "\u{301}", count: 30_000), kind: "regexp", body: Array("x".utf8))
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("wc"))
        E2E.assertError(answer, status: 400)
        // Its first 64 bytes: `(` and 31 marks (63 bytes; the next mark would split).
        let shown = "\"(" + String(repeating: "\u{301}", count: 31) + "…\" (60001 bytes)"
        XCTAssertEqual(answer.object["reason"] as? String, "invalid regular expression \(shown): not a valid ICU regular expression")
        XCTAssertLessThan(answer.body.count, 1_000, "the whole answer (was 200,094 bytes)")
    }

    /// SQLite's message and the SQL a reason echoes: `SELECT x` + 100,000 marks names the column
    /// `x́́́…` (one character), so the 200-"character" cut did not cut it.
    func testAnSQLErrorNamingACombiningMarkColumnGetsAShortReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let answer = try E2E.sql(client, "SELECT x" + Self.marks, tenant: "wc")
        E2E.assertError(answer, status: 400)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        // Compared by code points: as `Character`s, `x́` is not a prefix of `x́́́…`.
        XCTAssertTrue(reason.unicodeScalars.starts(with: "SQLite error 1 (error): no such column: x\u{301}\u{301}".unicodeScalars), reason)
        XCTAssertLessThan(answer.body.count, 2_000, "the whole answer")
    }

    /// A tenant id of one letter and 500 marks (1,001 bytes, within the 1,024-byte limit) is one
    /// character: the 404's reason showed it whole. Now its first 64 bytes and its length.
    func testATenantIDOfCombiningMarksIsCutInA404sReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let id = "t" + String(repeating: "\u{301}", count: 500)
        let miss = try client.request("GET", "/nothing", headers: E2E.tenantHeader(id))
        XCTAssertEqual(miss.status, 404, miss.text)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        let shown = "\"t" + String(repeating: "\u{301}", count: 31) + "…\" (1001 bytes)"  // 1 + 31 × 2 = 63 bytes
        XCTAssertTrue(reason.contains("in tenant \(shown)"), reason)
        XCTAssertEqual(miss.object["tenant"] as? String, id, "the field for programs keeps it whole")
    }

    /// A near miss shows a pattern's value and a request body cut to 200 bytes: a body `equal`
    /// of one letter and 100,000 marks was shown whole in `pattern`, `expected` and the reason.
    func testANearMissCutsCombiningMarkValuesByBytes() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let value = "a" + Self.marks
        let action = E2E.jsonText([
            "type": "update",
            "pattern": ["method": "POST", "url": ["kind": "equal", "value": "/up"], "headers": [:], "body": ["kind": "equal", "value": value]],
            "response": ["status": 201],
        ])
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("nm")).status, 201)
        let miss = try client.request("POST", "/up", headers: E2E.tenantHeader("nm"), body: Array(("b" + Self.marks).utf8))
        XCTAssertEqual(miss.status, 404, String(miss.text.prefix(300)))
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        // Each value's first 200 bytes: the letter and 99 marks (199 bytes).
        func cut(_ letter: String) -> String { letter + String(repeating: "\u{301}", count: 99) + "… (200001 bytes)" }
        XCTAssertEqual(
            reason,
            #"no mock matched POST /up in tenant "nm"; the closest is mock 1 (POST equal "/up" body equal "\#(cut("a"))") of tenant "nm": "#
                + #"body differs (expected equal "\#(cut("a"))", got "\#(cut("b"))")"#)
        // Two 200-byte cuts of each value (pattern, expected, actual, reason), not 200 KB each.
        XCTAssertLessThan(miss.body.count, 8_000, "the whole 404")
    }
}
