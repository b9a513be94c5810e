@testable import CatbirdHTTP
import CatbirdTestSupport
import XCTest

/// The per-connection memory (`HTTPServer.Configuration.connectionMemoryLimit`, 32 KiB by
/// default) holds the request line and headers, not bodies: headers that fit are served, more
/// get 431 from libmicrohttpd, and a body far larger than the memory is read whole or refused
/// with the handler's 413 at the body limit. Several requests on one connection reuse it.
final class ConnectionMemoryLimitTests: XCTestCase {
    /// Echoes the sizes it saw: `<header bytes> <body bytes>`.
    private struct SizeHandler: HTTPHandler {
        func respond(to request: HTTPRequest) -> HTTPAnswer {
            let headerBytes = request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            return .now(HTTPResponse(status: 200, body: Array("\(headerBytes) \(request.body.count)".utf8)))
        }

        func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
            .now(HTTPResponse(status: 413, body: Array("over \(limit)".utf8)))
        }
    }

    private var server: HTTPServer!

    override func setUpWithError() throws {
        server = HTTPServer(configuration: .init(port: 0, threadCount: 1, maxBodySize: 1 << 20), handler: SizeHandler())
        try server.start()
    }

    override func tearDown() {
        server.stop()
    }

    func testTheDefaultIs32KiB() {
        XCTAssertEqual(HTTPServer.Configuration().connectionMemoryLimit, 32 * 1024)
    }

    /// 20 KiB of headers, a 4 KiB cookie among them (libmicrohttpd keeps a parsed copy of the
    /// Cookie field in the same memory, so a cookie counts twice).
    func testHeadersOf20KiBAreServedAgainAndAgainOnOneConnection() throws {
        let client = try RawHTTPClient(port: server.port)
        let fields = [("Cookie", String(repeating: "c", count: 4 * 1024)), ("X-Large", String(repeating: "l", count: 16 * 1024))]
        let expected = fields.reduce("Host".utf8.count + "127.0.0.1".utf8.count) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        for _ in 0..<3 {
            let response = try client.request("GET", "/", headers: fields)
            XCTAssertEqual(response.status, 200)
            XCTAssertTrue(response.text.hasPrefix("\(expected) "), response.text)
        }
        XCTAssertEqual(try client.request("GET", "/").status, 200, "a small request after big ones")
    }

    func testHeadersOver32KiBAnswer431() throws {
        let client = try RawHTTPClient(port: server.port)
        let response = try client.request("GET", "/", headers: [("X-Big", String(repeating: "b", count: 40 * 1024))])
        XCTAssertEqual(response.status, 431)
        let many = (0..<400).map { ("X-Field-\($0)", String(repeating: "v", count: 100)) }
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/", headers: many).status, 431, "400 fields of 100 bytes")
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/").status, 200, "the server still serves")
    }

    func testBodiesLargerThanTheConnectionMemoryAreReadWholeUpToTheBodyLimit() throws {
        let client = try RawHTTPClient(port: server.port)
        let body = [UInt8](repeating: 0x61, count: 512 * 1024)
        let response = try client.request("POST", "/", body: body)
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.text.hasSuffix(" \(body.count)"), response.text)
        // Answered on the declared length alone, before any of the body is read.
        let overClient = try RawHTTPClient(port: server.port)
        try overClient.send(raw: Array("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \((1 << 20) + 1)\r\n\r\n".utf8))
        let over = try overClient.readResponse()
        XCTAssertEqual(over.status, 413)
        XCTAssertEqual(over.text, "over \(1 << 20)")
    }
}
