import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester39b-F8: one tenant's slow uploads filled `--max-buffered-bodies` and
/// other tenants' uploads got 503 with nothing to see it coming. `catbird_buffered_bytes` shows
/// the budget in use against `catbird_buffered_bytes_limit`, here an upload's part while it is
/// still arriving.
final class BufferedBytesGaugeTests: XCTestCase {
    func testTheGaugeShowsAnUploadsBytesWhileItArrives() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        var metrics = try E2E.metrics(client)
        XCTAssertGreaterThanOrEqual(metrics["catbird_buffered_bytes_limit"] ?? 0, 1_000_000, "\(metrics)")
        XCTAssertEqual(metrics["catbird_buffered_bytes"], 0)

        let uploader = try server.client()
        let head = "POST /slow HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: hog\r\nContent-Length: 1000000\r\n\r\n"
        try uploader.send(raw: Array(head.utf8) + Array(repeating: UInt8(ascii: "a"), count: 300_000))
        var held = 0.0
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            metrics = try E2E.metrics(client)
            held = metrics["catbird_buffered_bytes"] ?? 0
            if held >= 300_000 { break }
            usleep(50_000)
        }
        XCTAssertGreaterThanOrEqual(held, 300_000, "the upload's bytes received so far are held")
        try uploader.send(raw: Array(repeating: UInt8(ascii: "a"), count: 700_000))
        XCTAssertEqual(try uploader.readResponse().status, 404)
        XCTAssertEqual(try E2E.metrics(client)["catbird_buffered_bytes"], 0, "given back once answered")
    }
}
