import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR export being read holds its tenant against `--tenant-ttl` until its last part was sent
/// (docs/operations.md#retention).
final class HARExportTenantTTLTests: XCTestCase {
    /// Regression (tester finding tester27b-F4): `--tenant-ttl` dropped a tenant while a client
    /// was still reading its HAR export, which cut the file (the export counted as work only for
    /// the 8 ms it took to start). Here the TTL is 2 s (a pass every 100 ms); a client reads a
    /// 10 MB export slowly for 4 s: the tenant is still there, and the file is whole.
    func testATenantIsNotDroppedWhileItsExportIsRead() throws {
        let server = try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: .seconds(2), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { server.removeFiles() }
        let client = try server.client()
        let body = [UInt8](repeating: UInt8(ascii: "t"), count: 64 << 10)
        for index in 0..<160 {
            XCTAssertEqual(try client.request("POST", "/up/\(index)", headers: E2E.tenantHeader("harttl"), body: body).status, 404)
        }
        let export = try RawHTTPClient(port: server.port, timeoutSeconds: 30, receiveBuffer: 4096)
        try export.send("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader("harttl"))
        var read = export.read(upTo: 64 << 10, within: 5)
        XCTAssertTrue(String(decoding: read.prefix(12), as: UTF8.self) == "HTTP/1.1 200", String(decoding: read.prefix(200), as: UTF8.self))
        let end = ContinuousClock.now + .seconds(4)
        while ContinuousClock.now < end {
            read += export.read(upTo: 16 << 10, within: 0.5)
            usleep(200_000)
        }
        let ids = try E2E.tenants(client).compactMap { $0["id"] as? String }
        XCTAssertTrue(ids.contains("harttl"), "held while its export is read: \(ids)")

        // To the chunked body's last chunk, or until the server closes a cut export.
        let lastChunk = Array("\r\n0\r\n\r\n".utf8)
        let deadline = ContinuousClock.now + .seconds(20)
        while !read.suffix(lastChunk.count).elementsEqual(lastChunk), ContinuousClock.now < deadline {
            let more = export.read(upTo: 1 << 20, within: 0.5)
            read += more
            guard more.isEmpty else { continue }
            let (bytes, closed) = export.readUntilClosed(within: 0.1)
            read += bytes
            if closed { break }
        }
        XCTAssertGreaterThan(read.count, 10_000_000)
        // The document's end, then the last chunk: a cut export has neither.
        let tail = String(decoding: read.suffix(20), as: UTF8.self)
        XCTAssertTrue(tail.contains("]}}"), "the file is whole: \(tail.debugDescription)")
    }
}
