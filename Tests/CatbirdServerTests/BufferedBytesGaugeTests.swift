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

    /// Tester finding tester44a-F1: a forwarded answer's share of `--max-buffered-bodies` grew in
    /// doublings past its announced `Content-Length` (a 4,200,000-byte answer held 8,388,608
    /// bytes), so about half as many large answers fitted at once. Here the upstream's
    /// `/big/5` (5 MiB with a `Content-Length`) is forwarded to a client that does not read:
    /// the answer holds its 5,242,880 bytes, not 8 MiB.
    func testAForwardedAnswerHoldsItsAnnouncedLengthNotTheNextDoubling() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let server = try TestServer { $0.redirectURL = upstream.baseURL }
        defer { server.removeFiles() }
        let client = try server.client()
        let reader = try RawHTTPClient(port: server.port, receiveBuffer: 4096)
        try reader.send(raw: Array("GET /big/5 HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: big\r\n\r\n".utf8))
        var held = 0.0
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            held = try E2E.metrics(client)["catbird_buffered_bytes"] ?? 0
            if held >= 5_242_880 { break }
            usleep(50_000)
        }
        usleep(300_000)
        held = try E2E.metrics(client)["catbird_buffered_bytes"] ?? 0
        XCTAssertEqual(held, 5_242_880, "the answer's announced length, not 8,388,608")
        reader.hangUp()
    }
}

