import CatbirdTestSupport
import Foundation
import XCTest

/// Requests whose framing libmicrohttpd 0.9.75 would read one way and another server another:
/// differing `Content-Length` values (RFC 9112 section 6.3) and an HTTP/1.1 request without
/// exactly one `Host` (RFC 9112 section 3.2) get one JSON 400, then the connection is closed
/// (docs/protocol.md#malformed-requests).
final class AmbiguousFramingTests: ServerTestCase {
    /// Regression (try5 finding 2): `Content-Length: 3` and `Content-Length: 5` framed the body
    /// by the first (`abc`), and `de` joined the next request, journaled as method `deGET`.
    func testDifferingContentLengthsGetOne400AndTheConnectionIsClosed() throws {
        let raw = try server.client()
        try raw.send(raw: Array((
            "POST /cl HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: cl\r\n"
                + "Content-Length: 3\r\nContent-Length: 5\r\n\r\nabcde"
                + "GET /next HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: cl\r\nConnection: close\r\n\r\n").utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertEqual(response.object["error"] as? Bool, true)
        let reason = try XCTUnwrap(response.object["reason"] as? String)
        XCTAssertTrue(reason.contains("Content-Length values that differ"), reason)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(raw.readToEnd(), [], "nothing follows: the rest is not read as a request")
        let journal = try E2E.journal(client, tenant: "cl", once: 1)
        XCTAssertEqual(journal.first?["method"] as? String, "POST")
        XCTAssertEqual((journal.first?["response"] as? [String: Any])?["status"] as? Int, 400)
        XCTAssertFalse(journal.contains { ($0["method"] as? String)?.hasSuffix("GET") == true }, "\(journal)")
        // The same length twice is one length: served. (A list, `5, 5`, is refused by
        // libmicrohttpd itself as not a number, docs/protocol.md#what-libmicrohttpd-answers-itself.)
        let same = try server.client()
        try same.send(raw: Array("POST /same HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nabcde".utf8))
        XCTAssertEqual(try same.readResponse().status, 404)
    }

    /// Regression (tester finding tester40b-F6): an HTTP/1.0 request with `Transfer-Encoding:
    /// chunked` and `Connection: keep-alive` was decoded and its connection kept, the one
    /// ambiguous framing not refused; RFC 9112 section 6.1 makes it faulty framing, to be closed
    /// after the message. It is answered with `Connection: close`, journaled so, and the next
    /// request sent on the connection is not read.
    func testAnHTTP10RequestWithTransferEncodingClosesItsConnection() throws {
        let raw = try server.client()
        try raw.send(raw: Array((
            "POST /te10 HTTP/1.0\r\nHost: x\r\nX-Catbird-Parallel-Id: te10\r\nConnection: keep-alive\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                + "GET /next HTTP/1.0\r\nHost: x\r\nX-Catbird-Parallel-Id: te10\r\nConnection: keep-alive\r\n\r\n").utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 404, response.text)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(raw.readToEnd(), [], "nothing follows: the connection was closed after the message")
        let journal = try E2E.journal(client, tenant: "te10", once: 1)
        XCTAssertEqual(journal.map { $0["url"] as? String }, ["/te10"])
        let headers = (journal.first?["response"] as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertEqual(headers?["Connection"] as? String, "close", "journaled as it went out")
    }

    /// Regression (try5 finding 2): `GET /s HTTP/1.1` with no `Host` was answered 404 and
    /// journaled. Two `Host` fields are refused too; HTTP/1.0 needs none.
    func testAnHTTP11RequestWithoutOneHostGets400() throws {
        for (text, mention) in [
            ("GET /s HTTP/1.1\r\n\r\n", "must have a Host"),
            ("GET /s HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "2 Host header fields"),
            // tester48a-F4, its request: HTTP/1.0 with two Host fields was served (health 200,
            // the control routes' Host check reading the first only); any version is refused.
            ("GET /catbird/api/health HTTP/1.0\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
             "2 Host header fields"),
            ("GET /x HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n", "2 Host header fields"),
        ] {
            let raw = try server.client()
            try raw.send(raw: Array(text.utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, response.text)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains(mention), response.text)
            XCTAssertEqual(raw.readToEnd(), [])
        }
        let old = try server.client()
        try old.send(raw: Array("GET /s HTTP/1.0\r\n\r\n".utf8))
        XCTAssertEqual(try old.readResponse().status, 404)
    }

    /// Regression (try5 finding 9): `GET nopath` was served and journaled as an ordinary request,
    /// and the HAR export made it `http://nopath/`, another host. Now it is refused with 400
    /// (RFC 9112 section 3.2), and its journal entry's HAR url is `http://x/nopath`.
    func testATargetInNoFormIsRefusedAndItsHARURLKeepsTheHost() throws {
        let raw = try server.client()
        try raw.send(raw: Array("GET nopath HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: odd\r\nConnection: close\r\n\r\n".utf8))
        let response = try raw.readResponse()
        XCTAssertEqual(response.status, 400, response.text)
        XCTAssertTrue((response.object["reason"] as? String ?? "").contains("in no form HTTP/1.1 defines"), response.text)
        _ = try E2E.journal(client, tenant: "odd", once: 1)
        let har = try client.request("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader("odd"))
        XCTAssertEqual(har.status, 200, har.text)
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertEqual(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }, ["http://x/nopath"])
        // The forms HTTP/1.1 defines are still served: absolute (to a proxy) and asterisk.
        for text in ["GET http://api.example.com/p HTTP/1.1\r\nHost: api.example.com\r\n\r\n", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"] {
            let other = try server.client()
            try other.send(raw: Array(text.utf8))
            XCTAssertEqual(try other.readResponse().status, 404, text)
        }
    }

    /// Tester finding T13-F2, the exact request: `GET /api/a b HTTP/1.1` was served (200, a file
    /// mock named `a b`) and journaled with the url `/api/a b`; a tab or control byte likewise.
    /// Now 400 (RFC 9112 section 3.2), journaled as received; `%20` is served.
    func testATargetWithASpaceOrControlCharacterIsRefused() throws {
        try E2E.addMock(client, url: "/api/a b", body: "raw")
        try E2E.addMock(client, url: "/api/a%20b", body: "encoded")
        for target in ["/api/a b", "/api/a\tb", "/api/a\u{1}b", "/api/a\u{7F}b", "http://h/a b"] {
            let raw = try server.client()
            try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: sp\r\nConnection: close\r\n\r\n".utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, "\(target.debugDescription): \(response.text)")
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains("a space or a control character"), response.text)
        }
        let urls = try E2E.journal(client, tenant: "sp", once: 5).compactMap { $0["url"] as? String }
        XCTAssertEqual(Set(urls), ["/api/a b", "/api/a\tb", "/api/a\u{1}b", "/api/a\u{7F}b", "http://h/a b"])
        XCTAssertEqual(try client.request("GET", "/api/a%20b").text, "encoded")
    }

    /// The target is scanned once, eight bytes at a time (String+RequestBytes.swift): every space
    /// or control byte libmicrohttpd hands on (not NUL, CR or LF, which end or cut the line
    /// first) is refused wherever it stands, in a whole word or in the bytes after the last one;
    /// `!`, `~` and non-ASCII text beside them (the nearest bytes the scan must not take for
    /// one) are served.
    func testEverySpaceOrControlByteIsRefusedAtAnyOffsetOfTheTarget() throws {
        let controls = (UInt8(1)...UInt8(0x20)).filter { $0 != 0x0A && $0 != 0x0D } + [0x7F]
        for byte in controls {
            for offset in [1, 7, 8, 15, 20] {  // first word, its last byte, the second word, the tail
                var target = Array("/abcdefghijklmnopqrstu".utf8)  // 22 bytes: two words and 6 more
                target[offset] = byte
                let raw = try server.client()
                try raw.send(raw: Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
                let response = try raw.readResponse()
                XCTAssertEqual(response.status, 400, "byte \(byte) at \(offset): \(response.text)")
                XCTAssertTrue((response.object["reason"] as? String ?? "").contains("a space or a control character"),
                              "byte \(byte) at \(offset): \(response.text)")
            }
        }
        for target in ["/!!!!!!!!~~~~~~~~!~", "/~é!€~~~~~~~~~~~~~~~", "/\u{80}-\u{7FF}-\u{FFFF}-\u{10FFFF}-é"] {
            let raw = try server.client()
            try raw.send(raw: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            XCTAssertEqual(try raw.readResponse().status, 404, target.debugDescription)
        }
    }
}
