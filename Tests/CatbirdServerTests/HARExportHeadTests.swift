import CatbirdTestSupport
import Foundation
import XCTest

/// `HEAD /catbird/api/requests.har` declares the length `GET` sends and sends nothing after its
/// header section (docs/protocol.md#har-export).
final class HARExportHeadTests: XCTestCase {
    /// Regression: the export is chunked, and libmicrohttpd 0.9.75 sent its last chunk
    /// (`0\r\n\r\n`) after the header section of the answer to `HEAD` as well; a client reusing
    /// the connection read those bytes as the next answer's start.
    func testHeadDeclaresTheExportsLengthAndSendsNoBody() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = E2E.tenantHeader("har-head")
        for index in 0..<3 {
            XCTAssertEqual(try client.request("GET", "/missing/\(index)", headers: tenant).status, 404)
        }
        let get = try client.request("GET", "/catbird/api/requests.har", headers: tenant)  // waits for the journal writer
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(((get.object["log"] as? [String: Any])?["entries"] as? [Any])?.count, 3)

        let raw = try server.client()
        try raw.send(raw: Array("HEAD /catbird/api/requests.har HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: har-head\r\n\r\n".utf8))
        let head = String(decoding: raw.readUntilQuiet(firstByteWithin: 10_000, quietAfter: 300), as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 "), head)
        XCTAssertTrue(head.hasSuffix("\r\n\r\n"), "bytes after the header section: \(head.debugDescription)")
        let fields = head.split(separator: "\r\n").map { $0.lowercased() }
        XCTAssertTrue(fields.contains("content-length: \(get.body.count)"), "GET's length declared: \(head)")
        XCTAssertFalse(fields.contains("transfer-encoding: chunked"), head)
        XCTAssertEqual(try raw.request("GET", "/catbird/api/health").status, 200, "the connection serves on")
    }
}
