import CatbirdTestSupport
import Foundation
import XCTest

/// A NUL byte in the request line or a header field is refused with our JSON 400 instead of
/// cutting the line short, where libmicrohttpd hands it over as a C string
/// (docs/protocol.md#malformed-requests; found by a new user).
final class NULByteHeadTests: ServerTestCase {
    /// Sends `raw` on its own connection and asserts our JSON 400 whose reason holds `reason`.
    private func assertRefused(_ raw: [UInt8], reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let connection = try server.client()
        try connection.send(raw: raw)
        let response = try connection.readResponse()
        let shown = String(decoding: raw, as: UTF8.self).debugDescription
        XCTAssertEqual(response.status, 400, "\(shown): \(response.text)", file: file, line: line)
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", shown, file: file, line: line)
        XCTAssertEqual(response.object["error"] as? Bool, true, shown, file: file, line: line)
        let text = response.object["reason"] as? String ?? ""
        XCTAssertTrue(text.contains(reason), "\(shown): \(response.text)", file: file, line: line)
    }

    private func bytes(_ parts: String...) -> [UInt8] {
        Array(parts.joined(separator: "\0").utf8)
    }

    /// Regression: `X-Catbird-Parallel-Id: A\0-not-A` was tenant A (listed A's mocks, was
    /// served A's mock), and `DELETE /catbird/api/tenants` with `X-Catbird-Parallel-Id:
    /// \0attacker` was the admin (default tenant without a token): 204, every tenant dropped.
    func testANULInTheParallelIdIsRefusedAndDropsNothing() throws {
        try E2E.addMock(client, tenant: "A", url: "/a", body: "A's mock")
        try assertRefused(bytes("GET /a HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: A", "-not-A\r\n\r\n"), reason: "NUL")
        try assertRefused(bytes("GET /catbird/api/mocks HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: A", "-not-A\r\n\r\n"), reason: "NUL")
        try assertRefused(
            bytes("DELETE /catbird/api/tenants HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: ", "attacker\r\n\r\n"),
            reason: #"the header field "X-Catbird-Parallel-Id" holds a NUL byte"#)
        XCTAssertEqual(try E2E.mocks(client, tenant: "A").count, 1, "tenant A's mock is still there")
        XCTAssertEqual(try E2E.journal(client, tenant: "A").count, 0, "nothing was served as tenant A")
        XCTAssertEqual(try client.request("GET", "/a", headers: [("X-Catbird-Parallel-Id", "A")]).text, "A's mock")
    }

    /// Every other place a NUL could cut a string libmicrohttpd hands over: other fields'
    /// values (Content-Type, Authorization), a NUL right before the line end, the last field
    /// before the empty line, the method. The field is left out of the journaled headers (no
    /// cut value is kept), and a request line with a NUL is not journaled (only its cut form
    /// could be). A NUL in a field's name or after the version makes libmicrohttpd refuse the
    /// line itself (400, its own page): nothing is cut there either.
    func testANULAnywhereInTheHeadIsRefused() throws {
        try E2E.addMock(client, method: "POST", url: "/m", body: "served")
        let cases: [([UInt8], String)] = [
            (bytes("POST /m HTTP/1.1\r\nHost: x\r\nContent-Type: application/json", "x\r\nContent-Length: 0\r\n\r\n"), #""Content-Type""#),
            (bytes("POST /m HTTP/1.1\r\nAuthorization: Bearer to", "ken\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), #""Authorization""#),
            (bytes("POST /m HTTP/1.1\r\nHost: x\r\nX-A: v", "\r\nContent-Length: 0\r\n\r\n"), #""X-A""#),
            (bytes("POST /m HTTP/1.1\r\nContent-Length: 0\r\nHost: x", "y\r\n\r\n"), #""Host""#),
            (bytes("PO", "ST /m HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), "request line"),
        ]
        for (raw, reason) in cases { try assertRefused(raw, reason: reason) }
        for raw in [
            bytes("POST /m HTTP/1.1\r\nHost: x\r\nX-Ca", "tbird-Parallel-Id: A\r\nContent-Length: 0\r\n\r\n"),
            bytes("POST /m HTTP/1.1", "x\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
        ] {
            let connection = try server.client()
            try connection.send(raw: raw)
            XCTAssertEqual(try connection.readResponse().status, 400, String(decoding: raw, as: UTF8.self).debugDescription)
        }
        // The four JSON refusals with a field, and libmicrohttpd's refusal of the cut name (its
        // version refusal comes before the request line is handed over: not journaled).
        let journal = try E2E.journal(client, tenant: nil, once: 5)
        XCTAssertEqual(journal.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }, Array(repeating: 400, count: 5))
        let headers = journal.map { (($0["request"] as? [String: Any])?["headers"] as? [String: Any] ?? [:]).keys.sorted() }
        XCTAssertEqual(headers[0..<4], [["Content-Length", "Host"], ["Content-Length", "Host"], ["Content-Length", "Host"], ["Content-Length"]])
        XCTAssertFalse(journal.contains { $0["method"] as? String == "PO" }, "the cut method is not journaled")
        XCTAssertEqual(try E2E.journal(client, tenant: "A").count, 0)
    }

    /// No false refusal: bare LF line ends, spaces and tabs around values, a Cookie field
    /// (libmicrohttpd parses cookies), many fields, no fields at all.
    func testWellFormedHeadsAreStillServed() throws {
        try E2E.addMock(client, url: "/w", body: "served")
        let heads = [
            "GET /w HTTP/1.1\nHost: x\nX-A:  \tv \t\nCookie: a=1; b=2\n\n",
            "GET /w HTTP/1.1\r\nHost: x\r\nCookie: a=1; b=2\r\nX-Empty:\r\nX-B: 2\r\n\r\n",
            "GET /w HTTP/1.0\r\n\r\n",
            "GET   /w HTTP/1.1\r\nHost: x\r\n\r\n",
        ]
        for head in heads {
            let connection = try server.client()
            try connection.send(raw: Array(head.utf8))
            XCTAssertEqual(try connection.readResponse().text, "served", head.debugDescription)
        }
    }
}
