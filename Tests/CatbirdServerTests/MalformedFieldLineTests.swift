import CatbirdTestSupport
import Foundation
import XCTest

/// Field lines and methods libmicrohttpd 0.9.75 accepts although RFC 9112 says 400 are refused
/// with our JSON 400, and the journal never holds a field name that was not sent
/// (docs/protocol.md#malformed-requests; found by a new user).
final class MalformedFieldLineTests: ServerTestCase {
    /// Regression: `X-F: a` then `  folded` was journaled as `"X-Ffolded": "a"`;
    /// `X-Catbird-Parallel-Id : OTHER` was accepted, landing in the default tenant with a header
    /// named `"X-Catbird-Parallel-Id "`; the method `MéTH` was accepted.
    func testFoldedLinesNamesWithSpacesAndNonTokenMethodsGetJSON400() throws {
        try E2E.addMock(client, url: "/m", body: "served")
        let cases: [(raw: String, reason: String, method: String)] = [
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-F: a\r\n  folded\r\n\r\n", "folded", "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\n\tX-L: 1\r\n\r\n", "folded", "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id : OTHER\r\n\r\n", #""X-Catbird-Parallel-Id ""#, "GET"),
            ("GET /m HTTP/1.1\r\nHost: x\r\nX Y: 1\r\n\r\n", #""X Y""#, "GET"),
            ("MéTH /m HTTP/1.1\r\nHost: x\r\n\r\n", "method is not an HTTP token", "MéTH"),
        ]
        for (raw, reason, _) in cases {
            let connection = try server.client()
            try connection.send(raw: Array(raw.utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 400, "\(raw.debugDescription): \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", raw.debugDescription)
            XCTAssertEqual(response.object["error"] as? Bool, true, raw.debugDescription)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(reason), "\(raw.debugDescription): \(response.text)")
            XCTAssertEqual(response.header("Connection"), "close", raw.debugDescription)
        }
        XCTAssertEqual(try E2E.journal(client, tenant: "OTHER").count, 0, "a refused line's parallel id does not count")
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.map { $0["method"] as? String }, cases.map(\.method))
        XCTAssertEqual(journal.map { ($0["response"] as? [String: Any])?["status"] as? Int }, Array(repeating: 400, count: cases.count))
        // The tab-led line folds onto Host: libmicrohttpd joins it into the name `HostX-L: 1`.
        let kept = journal.map { entry in
            ((entry["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]).keys.sorted()
        }
        XCTAssertEqual(kept, [["Host"], [], ["Host"], ["Host"], ["Host"]], "only the field lines that were sent as such")
    }

    /// Methods and field names that are tokens, values with tabs and a large head in pieces are
    /// still served as sent (no false refusal from the in-place check).
    func testWellFormedLinesAreStillServed() throws {
        try E2E.addMock(client, method: "M-1.x_~", url: "/t", body: "token")
        let raw = try server.client()
        try raw.send(raw: Array("M-1.x_~ /t HTTP/1.1\r\nHost: x\r\nX-T:\tv\t\r\n".utf8))
        for index in 0..<40 {
            try raw.send(raw: Array("X-Pad-\(index): \(String(repeating: "p", count: 500))\r\n".utf8))
        }
        try raw.send(raw: Array("\r\n".utf8))
        XCTAssertEqual(try raw.readResponse().text, "token")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first)
        let headers = (entry["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]
        XCTAssertEqual(headers["X-T"] as? String, "v")
        XCTAssertEqual(headers.count, 42)
    }

    /// libmicrohttpd 0.9.75 drops a line with an empty field name (`: v`) before Catbird sees the
    /// headers, and the request is served: pinned, so a libmicrohttpd that hands it over shows.
    func testALineWithAnEmptyNameIsDroppedByLibmicrohttpd() throws {
        try E2E.addMock(client, url: "/e", body: "served")
        let raw = try server.client()
        try raw.send(raw: Array("GET /e HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n".utf8))
        XCTAssertEqual(try raw.readResponse().text, "served")
        let headers = (try E2E.journal(client, tenant: nil).first?["request"] as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertEqual(headers.map { Array($0.keys) }, ["Host"])
    }
}
