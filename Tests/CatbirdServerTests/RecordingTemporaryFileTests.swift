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
    /// next start removes it and logs so; one of another running Catbird (recording into the
    /// same directory, as far as the sweep can tell) is kept; neither is served.
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
        let other = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "other.sqlite"], in: directory)
        defer { _ = try? other.terminate() }
        let stale = "big3/.catbird-recording-\(gone)-3.tmp"
        let running = "big5/.catbird-recording-\(other.process.processIdentifier)-4.tmp"
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

    /// Tester finding tester20a-F7, the tester's files: one named with the id of a `sleep`
    /// (pid reused by a process that is not a Catbird), one with pid 1, and one of a zombie (a
    /// process killed and not reaped, as a Catbird killed with `kill -9` is until its parent
    /// waits). All three were kept, silently, as another running Catbird's. Now they are
    /// removed, the log saying what each process is; one of a running Catbird is kept, and the
    /// log says so.
    func testATemporaryFileOfAZombieOrOfAProcessThatIsNotACatbirdIsRemoved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-tmpfiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mocks = directory.appendingPathComponent("zdir")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        let sleeping = try Self.spawnSleep()
        let zombie = try Self.spawnSleep()
        defer {
            kill(sleeping, SIGKILL)
            for child in [sleeping, zombie] { waitpid(child, nil, 0) }
        }
        XCTAssertEqual(kill(zombie, SIGKILL), 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while (try? String(contentsOfFile: "/proc/\(zombie)/stat", encoding: .utf8))?.contains(") Z ") != true, ContinuousClock.now < deadline {
            usleep(10_000)
        }
        let other = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "other.sqlite"], in: directory)
        defer { _ = try? other.terminate() }
        let names = [sleeping, 1, zombie, other.process.processIdentifier].map { ".catbird-recording-\($0)-1.tmp" }
        for name in names { try Data("junk".utf8).write(to: mocks.appendingPathComponent(name)) }

        // The running Catbird's intent (RecordingIntent, tester20a-F1) is kept, and no more served than its files.
        let intent = ".catbird-recording-\(other.process.processIdentifier)-2.intent.tmp"
        try Data("{}".utf8).write(to: mocks.appendingPathComponent(intent))

        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "second.sqlite", "--mocks-dir", "zdir"], in: directory)
        for name in [names[3], intent] {
            XCTAssertEqual(try server.client().request("GET", "/" + name).status, 404, "\(name) is not served")
        }
        let log = try server.terminate().stderr
        let left = try FileManager.default.contentsOfDirectory(atPath: mocks.path)
        XCTAssertEqual(Set(left), [names[3], intent], "only the running Catbird's files are kept")
        let root = mocks.resolvingSymlinksInPath().path
        let cutShort = " (a recording cut short, e.g. by kill -9; docs/files.md#recording)"
        for expected in [
            "removed '\(root)/\(names[0])': a recording's temporary file left by process \(sleeping), which is no longer running: its id is "
                + "now a process that is not a Catbird ('sleep')" + cutShort,
            "removed '\(root)/\(names[2])': a recording's temporary file left by process \(zombie), which is no longer running: a zombie "
                + "('sleep') its parent has not reaped yet" + cutShort,
            "kept '\(root)/\(names[3])': a recording's temporary file of process \(other.process.processIdentifier) ('catbird'), a running "
                + "Catbird that may be recording into this directory (it is never served; docs/files.md#recording)",
        ] {
            XCTAssertTrue(log.contains(expected), "\(expected)\n\(log)")
        }
        XCTAssertTrue(log.contains("removed '\(root)/\(names[1])': a recording's temporary file left by process 1, which is no longer running"), log)
    }

    /// Starts `/bin/sleep 300` as a child this test reaps itself (`posix_spawn`: Foundation's
    /// `Process` would reap it, and it could not be left a zombie) and returns its id.
    private static func spawnSleep() throws -> pid_t {
        var child: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("300"), nil]
        defer { arguments.forEach { free($0) } }
        let status = posix_spawn(&child, "/bin/sleep", nil, nil, arguments, environ)
        guard status == 0 else { throw LaunchedServer.Failure("posix_spawn: \(String(cString: strerror(status)))") }
        return child
    }
}
