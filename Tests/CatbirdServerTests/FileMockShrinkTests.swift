import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A file mock whose file shrinks, or cannot be read, while it is sent ends with the
/// connection closed, not a client left waiting, and a warning saying which (docs/files.md;
/// found by a new user).
final class FileMockShrinkTests: XCTestCase {
    /// Regression: a 200 MB file from --mocks-dir sent to a slow reader, truncated to 1000 bytes
    /// meanwhile: the client got about 3.9 MB and then waited until its own timeout, and nothing
    /// said why. Now the bytes still there go out, the connection closes, and the log says how
    /// many bytes were sent. The journal entry, written when the answer started, keeps 200 and
    /// the full size, and its `problem` says the file shrank and how much went out (tester
    /// finding tester20a-F6: it had none, so the journal and HAR showed a whole answer).
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
        let control = try server.client()
        var entry: [String: Any] = [:]
        for _ in 0..<100 where entry["problem"] == nil {  // amended when the connection has ended
            entry = try E2E.journal(control, tenant: nil).first { $0["url"] as? String == "/big.bin" } ?? [:]
            usleep(50_000)
        }
        XCTAssertEqual(JSONNumber.int((entry["response"] as? [String: Any])?["status"]), 200, "\(entry)")
        let problem = entry["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("the file shrank while it was sent: "), "\(entry)")
        XCTAssertTrue(problem.hasSuffix(" of its \(size) bytes went out, then the connection was closed"), problem)

        let stderr = try server.terminate().stderr
        XCTAssertTrue(stderr.contains("file mock '"), stderr)
        XCTAssertTrue(stderr.contains("big.bin' shrank while it was sent: "), stderr)
        XCTAssertTrue(stderr.contains(" of \(size) bytes went out; the connection was closed"), stderr)
    }

    /// Regression: a read that failed (`pread` < 0, as `EIO` from a failing disk) was logged as
    /// the file having shrunk. A real failing read: sysfs's `/sys/class/net/lo/speed` is a
    /// regular file of 4096 bytes whose every read fails with `EINVAL` (the loopback has no
    /// link speed), served from `--mocks-dir /sys/class/net/lo` with `--journal-body-limit 1`
    /// so that it is sent from its descriptor.
    func testAFileWhoseReadFailsIsLoggedAsAReadError() throws {
        let speed = "/sys/class/net/lo/speed"
        let descriptor = open(speed, O_RDONLY)
        var byte: UInt8 = 0
        let read = descriptor >= 0 ? Glibc.read(descriptor, &byte, 1) : 0
        let readError = errno
        if descriptor >= 0 { close(descriptor) }
        guard descriptor >= 0, read < 0 else {
            throw XCTSkip("\(speed) is missing or readable here, so it cannot stand for a failing read")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-read-error-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--mocks-dir", "/sys/class/net/lo", "--journal-body-limit", "1",
             "--log-level", "warning"],
            in: directory)
        let client = try server.client()
        try client.send(raw: Array("GET /speed HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let (answer, closed) = client.readUntilClosed(within: 20)
        XCTAssertTrue(closed, "the connection is closed")
        let head = String(decoding: answer.prefix(400), as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), head)
        XCTAssertTrue(head.contains("Content-Length: 4096"), head)
        let control = try server.client()
        var problem: String?
        for _ in 0..<100 where problem == nil {  // amended when the connection has ended
            problem = try E2E.journal(control, tenant: nil).first { $0["url"] as? String == "/speed" }?["problem"] as? String
            usleep(50_000)
        }
        XCTAssertEqual(
            problem, "the file could not be read while it was sent (\(String(cString: strerror(readError)))): "
                + "0 of its 4096 bytes went out, then the connection was closed")

        let stderr = try server.terminate().stderr
        XCTAssertTrue(
            stderr.contains("/speed' could not be read while it was sent (\(String(cString: strerror(readError)))): "
                + "0 of 4096 bytes went out; the connection was closed"), stderr)
        XCTAssertFalse(stderr.contains("shrank"), stderr)
    }
}
