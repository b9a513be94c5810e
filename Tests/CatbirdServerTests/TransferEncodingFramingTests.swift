import CatbirdTestSupport
import Foundation
import XCTest

/// Requests whose `Transfer-Encoding` libmicrohttpd 0.9.75 cannot frame a body by (anything but
/// one field that is exactly `chunked`), or that pair `chunked` with a `Content-Length`: each
/// gets one JSON error as soon as its head is read (RFC 9112 section 6.1: 501 for a coding the
/// server does not implement before a final `chunked`, else 400), journaled as answered, and
/// the connection is closed (docs/protocol.md#malformed-requests).
final class TransferEncodingFramingTests: ServerTestCase {
    /// Regression (try6b finding 2): each of these got no answer at all (held until the client
    /// gave up, or the 120 s idle timeout), and was journaled as a 499 client hang-up although
    /// the request was complete.
    func testATransferEncodingOtherThanChunkedIsAnsweredAtOnceAndTheConnectionClosed() throws {
        let cases: [(fields: String, body: String, status: Int, mention: String)] = [
            ("Transfer-Encoding: gzip, chunked", "0\r\n\r\n", 501, "only chunked is implemented"),
            ("Transfer-Encoding: identity\r\nContent-Length: 5", "hello", 400, "its last coding must be chunked"),
            ("Transfer-Encoding: gzip", "hello", 400, "its last coding must be chunked"),
            ("Transfer-Encoding: chunked, chunked", "0\r\n\r\n", 400, "its last coding must be chunked, once"),
            ("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked", "0\r\n\r\n", 501, "\"gzip, chunked\""),
            // libmicrohttpd keeps the trailing space, and `chunked ` is no coding it knows.
            ("Transfer-Encoding: chunked ", "0\r\n\r\n", 400, "its last coding must be chunked"),
        ]
        for (index, item) in cases.enumerated() {
            let raw = try server.client()
            try raw.send(raw: Array((
                "POST /te\(index) HTTP/1.1\r\nHost: h\r\nX-Catbird-Parallel-Id: TE\r\n\(item.fields)\r\n\r\n\(item.body)").utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, item.status, "\(item.fields): \(response.text)")
            XCTAssertEqual(response.object["error"] as? Bool, true, response.text)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(item.mention), "\(item.fields): \(response.text)")
            XCTAssertEqual(response.header("Connection"), "close", item.fields)
            XCTAssertEqual(raw.readToEnd(), [], "\(item.fields): the connection is closed, nothing follows")
        }
        let journal = try E2E.journal(client, tenant: "TE", once: cases.count)
        for (index, item) in cases.enumerated() {
            let entry = try XCTUnwrap(journal.first { $0["url"] as? String == "/te\(index)" }, "\(journal)")
            XCTAssertEqual((entry["response"] as? [String: Any])?["status"] as? Int, item.status, "\(entry)")
            XCTAssertEqual(entry["method"] as? String, "POST")
            XCTAssertFalse((entry["problem"] as? String ?? "").contains("client closed"), "\(entry)")
            // wire6 leftover: the entry said nothing of the body it does not hold. (Its fields as
            // journaled: two joined, the trailing space gone.)
            let coding = ["gzip, chunked", "identity", "gzip", "chunked, chunked", "gzip, chunked", "chunked"][index]
            XCTAssertEqual(entry["problem"] as? String, "refused at its head: its body (Transfer-Encoding: \(coding)) was not read", "\(entry)")
        }
    }

    /// Regression (try6a F9): `Content-Length: 4` and `Transfer-Encoding: chunked` was served
    /// and the connection kept open, so `0\r\n\r\n` ended the chunked body and what the length
    /// called body was answered as a second request (`GET /smuggled`), journaled too.
    func testChunkedBesideAContentLengthIsRefusedAndNothingAfterIsReadAsARequest() throws {
        let raw = try server.client()
        try raw.send(raw: Array((
            "POST /smug HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: smug\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: smug\r\nConnection: close\r\n\r\n").utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertTrue(response.text.contains("both Transfer-Encoding: chunked and Content-Length"), response.text)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(raw.readToEnd(), [], "nothing follows: the rest is not read as a request")
        let journal = try E2E.journal(client, tenant: "smug", once: 1)
        XCTAssertEqual(journal.first?["url"] as? String, "/smug")
        XCTAssertEqual((journal.first?["response"] as? [String: Any])?["status"] as? Int, 400)
        // `chunked` alone, in any case, is still read.
        let chunked = try server.client()
        try chunked.send(raw: Array("POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(try chunked.readResponse().status, 404)
    }
}
