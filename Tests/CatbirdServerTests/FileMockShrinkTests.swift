import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A file mock whose file shrinks while it is sent ends with the connection closed, not a
/// client left waiting (docs/files.md; found by a new user).
final class FileMockShrinkTests: XCTestCase {
    /// Regression: a 200 MB file from --mocks-dir sent to a slow reader, truncated to 1000 bytes
    /// meanwhile: the client got about 3.9 MB and then waited until its own timeout, and nothing
    /// said why. Now the bytes still there go out, the connection closes, and the log says how
    /// many bytes were sent. (The journal entry, written when the answer started, keeps 200 and
    /// the full size, as docs/files.md says.)
    func testAFileTruncatedWhileSentClosesTheConnectionAndIsLogged() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-shrink-\(UUID().uuidString)")
        let mocks = directory.appendingPathComponent("mocks")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = mocks.appendingPathComponent("big.bin").path
        let size = 64 << 20
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        XCTAssertEqual(truncate(path, off_t(size)), 0, "a sparse 64 MiB file")

        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--mocks-dir", "mocks", "--log-level", "warning"], in: directory)
        let reader = try server.client()
        try reader.send(raw: Array("GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let first = reader.read(upTo: 1 << 20, within: 10)
        usleep(300_000)  // the server fills the socket's buffers meanwhile
        XCTAssertTrue(String(decoding: first.prefix(200), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        XCTAssertEqual(truncate(path, 1000), 0)
        let (rest, closed) = reader.readUntilClosed(within: 20)
        XCTAssertTrue(closed, "the connection is closed, not left waiting for bytes that will never come")
        XCTAssertLessThan(first.count + rest.count, size, "an incomplete answer")

        let stderr = try server.terminate().stderr
        XCTAssertTrue(stderr.contains("file mock '"), stderr)
        XCTAssertTrue(stderr.contains("big.bin' shrank while it was sent: "), stderr)
        XCTAssertTrue(stderr.contains(" of \(size) bytes went out; the connection was closed"), stderr)
    }
}
