import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode's temporary files (`.catbird-recording-<pid>-<n>.tmp`, docs/files.md#recording)
/// left by a Catbird killed mid-recording. Tester finding T12-F3: they stayed in the mocks
/// directory for good (recording directories are usually committed as fixtures), and replay
/// served them as file mocks (a 12 MB partial body as a 200).
final class RecordingTemporaryFileTests: XCTestCase {
    /// A Catbird killed with `kill -9` leaves a temporary file named with its process id (the
    /// name the tester found, `big3/.catbird-recording-<pid>-3.tmp`, with a partial body). The
    /// next start removes it and logs so; one of a process still running (this test's own, as
    /// another Catbird recording into the same directory would be) is kept; neither is served.
    func testATemporaryFileOfAProcessThatIsGoneIsRemovedAtStartAndNoneIsServed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tmpfiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mocks = directory.appendingPathComponent("mocks")
        try FileManager.default.createDirectory(at: mocks.appendingPathComponent("big3"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: mocks.appendingPathComponent("big5"), withIntermediateDirectories: true)
        let killed = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", "first.sqlite", "--mocks-dir", "mocks"], in: directory)
        let gone = killed.process.processIdentifier
        XCTAssertEqual(try killed.terminate(signal: SIGKILL).reason, .uncaughtSignal)
        let stale = "big3/.catbird-recording-\(gone)-3.tmp"
        let running = "big5/.catbird-recording-\(getpid())-4.tmp"
        for name in [stale, running] {
            try Data(repeating: UInt8(ascii: "p"), count: 4096).write(to: mocks.appendingPathComponent(name))
        }

        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", "second.sqlite", "--mocks-dir", "mocks"], in: directory)
        let client = try server.client()
        for name in [stale, running] {
            let answer = try client.request("GET", "/" + name)
            XCTAssertEqual(answer.status, 404, "\(name) is not served: \(answer.text)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: mocks.appendingPathComponent(stale).path), "removed at start")
        XCTAssertTrue(FileManager.default.fileExists(atPath: mocks.appendingPathComponent(running).path), "its process still runs")
        let log = try server.terminate().stderr
        let root = mocks.resolvingSymlinksInPath().path
        XCTAssertTrue(
            log.contains(
                "removed '\(root)/\(stale)': a recording's temporary file left by process \(gone), which is no longer running "
                    + "(a recording cut short, e.g. by kill -9; docs/files.md#recording)"),
            log)
        XCTAssertFalse(log.contains("removed '\(root)/\(running)'"), log)
    }
}
