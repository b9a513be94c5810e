import CatbirdTestSupport
import Foundation
import XCTest

/// A recording that the file-size limit stops (docs/files.md#recording: `not recorded: cannot
/// write '<path>': <why>`).
final class RecordFileSizeLimitTests: XCTestCase {
    /// Regression (tester finding tester31a-F2, its steps): `prlimit --fsize=5000000` on a
    /// recording server, then a 20 MiB answer: forwarded whole (200), not recorded, but its
    /// problem said `cannot write '…/huge/.catbird-recording-19569-1.tmp': The operation could
    /// not be completed. (NSCocoaErrorDomain error 512.)`: a temporary file gone by then, and
    /// Foundation's number for EFBIG. Now it names the recording's file and the system's reason.
    func testARecordingPastTheFileSizeLimitNamesItsFileAndTheReason() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-rec7-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mocks = directory.appendingPathComponent("rec7")
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db7.sqlite").path, "--mocks-dir", mocks.path,
             "--record", "--redirect-url", upstream.baseURL, "--log-level", "error"],
            in: directory)
        defer { _ = try? server.terminate() }
        try FileSizeLimit.set(of: server.process.processIdentifier, soft: 5_000_000)
        let client = try server.client()
        let answer = try client.request("GET", "/big/20")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body.count, 20 << 20, "forwarded whole")
        let root = mocks.resolvingSymlinksInPath().path
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/big/20" })
        XCTAssertEqual(entry["problem"] as? String, "not recorded: cannot write '\(root)/big/20': File too large")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/big"), [], "nothing left behind")
    }
}
