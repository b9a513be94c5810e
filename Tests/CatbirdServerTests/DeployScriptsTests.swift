import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// deploy/xcode/start.sh and stop.sh as an Xcode scheme's pre- and post-actions run them:
/// start in the background, wait until healthy, stop with SIGTERM so the journal is written,
/// and fail loudly (leaving nothing behind) when the server does not come up.
final class DeployScriptsTests: XCTestCase {
    private(set) var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        // Whatever a failed test left running for its ports is stopped by the pid files.
        if let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
            for name in names where name.hasPrefix("catbird-") && name.hasSuffix(".pid") {
                if let pid = Int32((try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") {
                    kill(pid, SIGKILL)
                }
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    func testStartServesAndStopWritesTheJournal() throws {
        let port = try ChildProcesses.freePort()
        let database = directory.appendingPathComponent("deploy.sqlite").path
        let started = try script("start.sh", ["--port", "\(port)", "--db", database])
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertTrue(started.stdout.contains("Catbird is serving on http://127.0.0.1:\(port)"), started.output)

        let pid = try XCTUnwrap(recordedPid(port: port), "pid file \(pidFile(port).path)")
        XCTAssertTrue(ChildProcesses.isAlive(pid), "pid \(pid) is running")
        let client = try RawHTTPClient(port: port)
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
        try E2E.addMock(client, url: "/deploy/*", kind: "wildcard", body: "from start.sh")
        for index in 0..<3 {
            let response = try client.request("GET", "/deploy/\(index)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "from start.sh")
        }

        // A second start for the port reuses the healthy server (documented in start.sh).
        let again = try script("start.sh", ["--port", "\(port)", "--db", database])
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("already running on port \(port) (pid \(pid)"), again.output)
        XCTAssertEqual(recordedPid(port: port), pid)

        let stopped = try script("stop.sh", ["--port", "\(port)"])
        XCTAssertEqual(stopped.status, 0, stopped.output)
        XCTAssertTrue(stopped.stdout.contains("stopped Catbird on port \(port) (pid \(pid))"), stopped.output)
        XCTAssertFalse(stopped.stderr.contains("SIGKILL"), "SIGTERM sufficed: \(stopped.output)")
        XCTAssertFalse(ChildProcesses.isAlive(pid), "pid \(pid) has exited")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidFile(port).path))

        // The journal was written before the exit: a new server on the same file sees it all.
        let port2 = try ChildProcesses.freePort()
        let restarted = try script("start.sh", ["--port=\(port2)", "--db=\(database)", "--timeout=30"])
        XCTAssertEqual(restarted.status, 0, restarted.output)
        let reader = try RawHTTPClient(port: port2)
        let rows = try E2E.sqlRows(reader, "SELECT COUNT(*) FROM requests WHERE url LIKE '/deploy/%' AND status = 200")
        XCTAssertEqual(rows.first.map { $0.map { JSONNumber.int($0) } }, [3])
        XCTAssertEqual(try script("stop.sh", ["--port", "\(port2)"]).status, 0)
    }

    func testATimeoutFailsLoudlyAndLeavesNothingRunning() throws {
        // A "server" that never answers: it records its pid and its child's, then waits.
        let processes = directory.appendingPathComponent("never-healthy.pids")
        let fake = try makeScript("never-healthy", """
            #!/bin/bash
            echo "never-healthy started with $*"
            sleep 600 &
            echo "$$ $!" > '\(processes.path)'
            wait
            """)
        let port = try ChildProcesses.freePort()
        let startedAt = ContinuousClock.now
        let result = try script("start.sh", ["--port", "\(port)", "--timeout", "1"], binary: fake)
        XCTAssertLessThan(ContinuousClock.now - startedAt, .seconds(10))

        assertFailedStart(result, port: port, saying: [
            "timeout", "port \(port)", "within 1 s",
            "never-healthy started with serve --host 127.0.0.1 --port \(port)",  // the log's last lines
        ])
        let pids = try String(contentsOf: processes, encoding: .utf8).split(separator: " ").compactMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        XCTAssertEqual(pids.count, 2)
        for pid in pids {
            XCTAssertFalse(ChildProcesses.isAlive(pid), "pid \(pid) was killed")
        }
    }

    func testAServerThatExitsIsReportedWithItsLog() throws {
        let fake = try makeScript("exits", """
            #!/bin/bash
            echo "cannot open the database" >&2
            exit 3
            """)
        let port = try ChildProcesses.freePort()
        let result = try script("start.sh", ["--port", "\(port)"], binary: fake)
        assertFailedStart(result, port: port, saying: ["catbird on port \(port) exited (status 3)", "cannot open the database"])
    }

    func testStopWhenNothingRunsSucceeds() throws {
        let port = try ChildProcesses.freePort()
        let result = try script("stop.sh", ["--port", "\(port)"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("nothing to stop"), result.output)

        // A stale pid file (its process long gone) is removed, still with status 0.
        try "2147483000\n".write(to: pidFile(port), atomically: true, encoding: .utf8)
        let stale = try script("stop.sh", ["--port", "\(port)"])
        XCTAssertEqual(stale.status, 0, stale.output)
        XCTAssertTrue(stale.stdout.contains("stale"), stale.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidFile(port).path))
    }

    func testBadUsageExitsTwo() throws {
        for (name, arguments) in [("start.sh", ["--port", "http"]), ("start.sh", ["--timeout", "0"]), ("stop.sh", ["--nope"])] {
            let result = try script(name, arguments)
            XCTAssertEqual(result.status, 2, "\(name) \(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("\(name) [--port N]"), "usage follows: \(result.output)")
        }
    }

    // MARK: - Helpers

    /// `deploy/xcode/<name>` in this checkout.
    private func scriptURL(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/xcode/\(name)")
    }

    /// Runs a script with TMPDIR set to this test's directory (so its pid and log files are
    /// the test's own) and CATBIRD_BINARY set to `binary`, by default the built `catbird`.
    /// `environment` is added (a `CATBIRD_BINARY` in it replaces `binary`; an empty value removes the variable).
    func script(
        _ name: String, _ arguments: [String], binary: URL? = nil, environment: [String: String] = [:]
    ) throws -> ChildProcesses.Result {
        let binary = try binary ?? BuiltProducts.executable(named: "catbird")
        return try ChildProcesses.run(
            scriptURL(name), arguments,
            environment: ["TMPDIR": directory.path, "CATBIRD_BINARY": binary.path, "CATBIRD_NO_NOTIFICATION": "1"]
                .merging(environment) { $1 }.filter { !$0.value.isEmpty },
            in: directory, seconds: 60)
    }

    /// Asserts a start that failed loudly: status 1, each of `messages` in its stderr, and no
    /// pid file left for `port`.
    func assertFailedStart(
        _ result: ChildProcesses.Result, port: UInt16, saying messages: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(result.status, 1, result.output, file: file, line: line)
        for message in messages {
            XCTAssertTrue(result.stderr.contains(message), "no \"\(message)\" in: \(result.output)", file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidFile(port).path), "pid file removed", file: file, line: line)
    }

    func pidFile(_ port: UInt16) -> URL {
        directory.appendingPathComponent("catbird-\(port).pid")
    }

    func recordedPid(port: UInt16) -> Int32? {
        (try? String(contentsOf: pidFile(port), encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func makeScript(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }
}

/// Running the deploy scripts from tests (through CatbirdTestSupport's ProcessRunner and
/// FreePort) and process liveness.
enum ChildProcesses {
    typealias Result = ProcessRunner.Result

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `executable arguments` to completion with this process's environment minus any
    /// CATBIRD_* variable, plus `environment`; kills it and throws after `seconds`.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL, seconds: Int = 60
    ) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            executable, arguments, in: directory,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CATBIRD_") }.merging(environment) { $1 },
            seconds: seconds)
    }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> UInt16 {
        try FreePort.next()
    }

    /// True while `pid` is a running process (a zombie nobody reaped yet counts as exited).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let afterName = stat.range(of: ") ", options: .backwards)
        else { return true }
        return !stat[afterName.upperBound...].hasPrefix("Z")
    }
}
