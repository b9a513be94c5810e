#if canImport(Glibc)
import Glibc
#else
import Foundation
#endif
@testable import CatbirdHTTP
import CatbirdTestSupport
import XCTest

/// ``HTTPRequest/responseHeadRoom`` is exactly what libmicrohttpd 0.9.75 has left for the
/// response's head (``ResponseHeadRoom``): a head of that size is sent, one byte more is not sent
/// at all (the connection is closed with nothing written). Checked for request heads of several
/// sizes, with query parameters and cookies, so a libmicrohttpd that lays its memory out
/// differently shows here.
final class ResponseHeadRoomTests: XCTestCase {
    /// Answers with an `X-Fill` field that makes the head exactly `responseHeadRoom` bytes, plus
    /// one when the path is `/over`.
    private struct FillingHandler: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPAnswer {
            var response = HTTPResponse(status: 200, headers: HTTPHeaders([(name: "X-Fill", value: "f")]), body: Array("ok".utf8))
            let stamped = response.stamped(date: "Tue, 01 Dec 2026 16:00:00 GMT")
            let size = stamped.headSize(adding: stamped.fieldsAddedOnSending(to: request))
            let fill = 1 + request.responseHeadRoom - size + (request.path == "/over" ? 1 : 0)
            response.headers = HTTPHeaders([(name: "X-Fill", value: String(repeating: "f", count: fill)),
                                            (name: "Date", value: "Tue, 01 Dec 2026 16:00:00 GMT")])
            return .now(response)
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413))
        }
    }

    private var server: HTTPServer!

    override func setUpWithError() throws {
        server = HTTPServer(configuration: .init(port: 0, threadCount: 1), handler: FillingHandler())
        try server.start()
    }

    override func tearDown() {
        server.stop()
    }

    func testAHeadOfExactlyTheRoomIsSentAndOneByteMoreIsNot() throws {
        let shapes: [(label: String, query: String, headers: [(String, String)])] = [
            ("small", "", []),
            ("query", "?a=1&b=2&c", []),
            ("fields", "", (0..<12).map { ("X-F\($0)", "v") }),
            ("8 KB field", "", [("X-Pad", String(repeating: "p", count: 8_000))]),
            ("cookie", "", [("Cookie", "a=1; b=2")]),
            ("1 KB cookie", "?q=1", [("Cookie", "a=" + String(repeating: "c", count: 1_000)), ("X-Pad", String(repeating: "p", count: 20_000))]),
            // Regression: libmicrohttpd copies an empty Cookie field too (its NUL, 16 bytes); the
            // room was counted 16 bytes too large, and a head that filled it was not sent at all.
            ("empty cookie", "?x", [("Cookie", "")]),
            // The query and the Cookie field as the server notes them on the way (a `?` in the
            // raw target, the first field named Cookie in any case), not looked up again.
            ("empty query", "?", []),
            ("lower-case cookie", "", [("cookie", "a=1; b=2; c=3")]),
            ("two cookie fields", "", [("COOKIE", "a=1"), ("Cookie", "b=" + String(repeating: "c", count: 500) + "; d=4")]),
        ]
        for shape in shapes {
            let fits: RawResponse
            do {
                fits = try RawHTTPClient(port: server.port).request("GET", "/fit" + shape.query, headers: shape.headers + [("Connection", "close")])
            } catch {
                XCTFail("\(shape.label): a head of exactly the room got no answer: \(error)")
                continue
            }
            XCTAssertEqual(fits.status, 200, shape.label)
            XCTAssertEqual(fits.text, "ok", shape.label)
            let over = try RawHTTPClient(port: server.port)
            try over.send(raw: Array(("GET /over\(shape.query) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + shape.headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "Connection: close\r\n\r\n").utf8))
            let (bytes, closed) = over.readUntilClosed(within: 10)
            XCTAssertEqual(bytes.count, 0, "\(shape.label): one byte over the room is not sent at all")
            XCTAssertTrue(closed, shape.label)
        }
    }
}
