import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR export whose page read fails half-way (journal pages damaged on disk after the first
/// page was read) must not pass for a whole file: the server closes the connection without the
/// chunked body's last chunk, so an HTTP client reports an incomplete transfer
/// (docs/protocol.md#har-export); `/catbird/api/health` reports the corruption
/// (README.md#storage-faults).
final class HARExportFailureTests: XCTestCase {
    func testAnExportCutShortByADamagedPageEndsWithoutTheLastChunk() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let database = server.databasePath
        let client = try server.client()
        try E2E.addMock(client, method: "POST", url: "/kept", body: "kept")
        for _ in 0..<200 {
            XCTAssertEqual(try client.request("POST", "/kept", body: Array(repeating: 0x61, count: 1024)).status, 200)
        }
        let whole = try client.request("GET", "/catbird/api/requests.har")  // waits for the journal writer
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(((whole.object["log"] as? [String: Any])?["entries"] as? [Any])?.count, 200, "the whole export parses")

        // The first page (the oldest entries) stays readable; the rest of the journal is damaged.
        let leaves = try DamagedPages.leafPages(of: "journal_rows", in: database)
        XCTAssertGreaterThan(leaves.count, 20, "enough journal pages to damage")
        let damage = try DamagedPages(Array(leaves.dropFirst(leaves.count / 3)), in: database)

        let descriptorsBefore = try Self.openDescriptors()
        var cut: RawHTTPClient! = try RawHTTPClient(port: server.port)
        try cut.send(raw: Array("GET /catbird/api/requests.har HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let (bytes, closed) = cut.readUntilClosed(within: 10)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), String(text.prefix(200)))
        XCTAssertTrue(text.lowercased().contains("transfer-encoding: chunked"), String(text.prefix(400)))
        XCTAssertTrue(text.contains(#""entries":["#), "the first page was sent")
        XCTAssertTrue(closed, "the server closes the connection of a cut export (not left waiting)")
        XCTAssertFalse(text.hasSuffix("0\r\n\r\n"), "no last chunk: the body is visibly incomplete: …\(text.suffix(80))")
        let document = Self.dechunked(bytes)
        XCTAssertTrue(document.starts(with: Array(#"{"log":{"#.utf8)), "the document begins")
        XCTAssertNil(try? JSONSerialization.jsonObject(with: Data(document)), "the document is cut, not valid JSON")
        cut = nil
        // Regression: the export's own connection kept the fault to itself; health says it as it
        // does for every other read that meets a damaged page.
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertTrue((health.object["reason"] as? String ?? "").contains("the database file is corrupt"), health.text)
        // The server let the connection go: its socket and the export's database connection
        // are closed again (this process is the server).
        var descriptors = try Self.openDescriptors()
        for _ in 0..<50 where descriptors > descriptorsBefore {
            usleep(100_000)
            descriptors = try Self.openDescriptors()
        }
        XCTAssertLessThanOrEqual(descriptors, descriptorsBefore, "no descriptor left open by the cut export")

        // curl, as a user would run it, says the transfer was cut short (exit 18, partial file).
        XCTAssertThrowsError(try CurlClient.run(["http://127.0.0.1:\(server.port)/catbird/api/requests.har"], timeoutSeconds: 20)) {
            XCTAssertTrue("\($0)".contains("(18)"), "curl: partial file, not a timeout: \($0)")
        }

        try damage.restore()
        try E2E.addMock(client, url: "/mended", body: "mended")  // every connection drops its cached pages
        let again = try RawHTTPClient(port: server.port).request("GET", "/catbird/api/requests.har")
        XCTAssertEqual(((again.object["log"] as? [String: Any])?["entries"] as? [Any])?.count, 200, "whole again once the pages are")
    }

    /// Regression (T11-F11): an export read slowly while the tenant's journal was cleared
    /// finished as a valid, well-closed HAR of the entries sent so far (1,376 of 157,440), with
    /// nothing saying it was cut. It now ends as a failed read does: the connection closed
    /// without the last chunk, the document without its closing `]}}`.
    func testAnExportCutShortByAJournalClearEndsWithoutTheLastChunk() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, method: "POST", url: "/kept", body: "kept")
        // 300 entries of 64 KiB bodies: about 20 MB of HAR, more than the sockets buffer while
        // the client reads nothing, so the server is still producing pages when the clear comes.
        let body = Array(repeating: UInt8(ascii: "a"), count: 64 * 1024)
        for _ in 0..<300 {
            XCTAssertEqual(try client.request("POST", "/kept", body: body).status, 200)
        }
        let reader = try RawHTTPClient(port: server.port)
        try reader.send(raw: Array("GET /catbird/api/requests.har HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        var bytes = reader.read(upTo: 64 * 1024, within: 10)
        XCTAssertTrue(String(decoding: bytes.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 200"), String(decoding: bytes.prefix(200), as: UTF8.self))
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests").status, 200)
        let (rest, closed) = reader.readUntilClosed(within: 30)
        bytes += rest
        XCTAssertTrue(closed, "the server closes the connection of a cut export")
        XCTAssertFalse(bytes.suffix(5).elementsEqual(Array("0\r\n\r\n".utf8)), "no last chunk: the body is visibly incomplete")
        let document = Self.dechunked(bytes)
        XCTAssertTrue(document.starts(with: Array(#"{"log":{"#.utf8)), "the document begins")
        XCTAssertFalse(document.suffix(3).elementsEqual(Array("]}}".utf8)), "the document is not closed")
        XCTAssertNil(try? JSONSerialization.jsonObject(with: Data(document)), "the document is cut, not valid JSON")
        // The journal as it is now exports whole: empty.
        let again = try client.request("GET", "/catbird/api/requests.har")
        XCTAssertEqual(((again.object["log"] as? [String: Any])?["entries"] as? [Any])?.count, 0, again.text)
    }

    /// The data of the chunks in a chunked answer (the bytes after its header section), as far
    /// as they came.
    private static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        let crlf: [UInt8] = [13, 10]
        guard var at = bytes.firstRange(of: crlf + crlf)?.upperBound else { return [] }
        var data: [UInt8] = []
        while let lineEnd = bytes[at...].firstRange(of: crlf)?.lowerBound,
              let size = Int(String(decoding: bytes[at..<lineEnd].prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self), radix: 16),
              size > 0 {
            let start = lineEnd + 2
            data += bytes[start..<min(start + size, bytes.count)]
            at = start + size + 2
            guard at < bytes.count else { break }
        }
        return data
    }

    private static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
