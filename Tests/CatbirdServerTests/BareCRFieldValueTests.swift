import CatbirdTestSupport
import Foundation
import XCTest

/// A CR inside a header field value that is not part of the line's CR LF is refused with our
/// JSON 400 (RFC 9112 section 2.2; docs/protocol.md#malformed-requests). Regression (try7b F7):
/// `X-A: a\rX-Injected: yes` was accepted, journaled with the CR, and forwarded as sent in
/// redirect/record mode, where an upstream that ends lines at CR reads an injected field.
final class BareCRFieldValueTests: ServerTestCase {
    func testABareCRInAFieldValueIsRefusedAndLeftOutOfTheJournal() throws {
        try E2E.addMock(client, url: "/echo", body: "served")
        let connection = try server.client()
        try connection.send(raw: Array("GET /echo HTTP/1.1\r\nHost: x\r\nX-A: a\rX-Injected: yes\r\nConnection: close\r\n\r\n".utf8))
        let response = try connection.readResponse()
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertEqual(response.object["error"] as? Bool, true, response.text)
        XCTAssertEqual(response.object["reason"] as? String,
                       #"the value of the header field "X-A" holds a CR not followed by LF, which no field may hold (RFC 9112 section 2.2): percent-encode it"#)
        XCTAssertNotEqual(response.text, "served")

        let journal = try E2E.journal(client, tenant: nil, once: 1)
        let request = journal.first?["request"] as? [String: Any] ?? [:]
        let headers = request["headers"] as? [String: Any] ?? [:]
        XCTAssertEqual((journal.first?["response"] as? [String: Any])?["status"] as? Int, 400)
        XCTAssertNil(headers["X-A"], "the refused field is left out: \(headers)")
        XCTAssertFalse(headers.values.contains { ($0 as? String)?.contains("\r") == true }, "no CR kept: \(headers)")
    }

    /// No false refusal: CR LF and bare LF line ends, a CR LF right after the value, tabs.
    func testLineEndsAreNotBareCRs() throws {
        try E2E.addMock(client, url: "/w", body: "served")
        for head in ["GET /w HTTP/1.1\r\nHost: x\r\nX-A: a\t b \r\n\r\n", "GET /w HTTP/1.1\nHost: x\nX-A: a\n\n"] {
            let connection = try server.client()
            try connection.send(raw: Array(head.utf8))
            let response = try connection.readResponse()
            XCTAssertEqual(response.status, 200, head.debugDescription + response.text)
            XCTAssertEqual(response.text, "served")
        }
    }
}
