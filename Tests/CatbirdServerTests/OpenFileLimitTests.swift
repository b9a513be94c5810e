import CatbirdTestSupport
import Foundation
import XCTest

/// An open-file limit (RLIMIT_NOFILE: `ulimit -n`, systemd's `LimitNOFILE=`) too low for the
/// server to hold its database connections and some clients (README.md#storage-faults).
final class OpenFileLimitTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            throw XCTSkip("/usr/bin/prlimit (util-linux) is not installed")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-nofile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Regression (tester finding tester21b-F11, its limits): at 16 open files the start said
    /// the database file could not be opened and exited 3 (the code that tells a supervisor not
    /// to restart) though the file was fine; at 24 and 32 it said "unable to open database
    /// file" (exit 1), at 36 that the port was in use. Now each exits 1 naming the limit, and
    /// the database file it never opened is not created.
    func testALowOpenFileLimitIsNamedNotBlamedOnTheFile() throws {
        for limit in [16, 24, 32, 36] {
            let result = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/prlimit"),
                ["--nofile=\(limit):\(limit)", try BuiltProducts.executable(named: "catbird").path,
                 "--port", "\(try FreePort.next())", "--db", "f2.sqlite", "--threads", "2"],
                in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
            XCTAssertEqual(result.status, 1, "limit \(limit): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("cannot start: the open-file limit (RLIMIT_NOFILE: ulimit -n, LimitNOFILE=) is \(limit), "),
                "limit \(limit): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("Catbird needs at least 108 at 2 worker threads"), "limit \(limit): \(result.stderr)")
            for blame in ["cannot be opened", "unable to open database file", "port in use"] {
                XCTAssertFalse(result.stderr.contains(blame), "limit \(limit): \(result.stderr)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("f2.sqlite").path), "limit \(limit)")
        }
    }

    /// The least limit the check lets through at 2 worker threads (108) holds the server's own
    /// files and 40 client connections open at once: the estimate of its own files
    /// (`OpenFileLimit.serverFiles`) is not too low. The limit is set on the running server.
    func testTheLeastLimitAllowedHoldsFortyClients() throws {
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "f.sqlite", "--threads", "2"], in: directory)
        let pid = server.process.processIdentifier
        let set = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/prlimit"), ["--pid", "\(pid)", "--nofile=108:108"], in: directory, seconds: 10)
        XCTAssertEqual(set.status, 0, set.stderr)
        let clients = try (0..<40).map { _ in try RawHTTPClient(port: server.port) }
        for (index, client) in clients.enumerated() { try client.send("GET", "/nothing/\(index)") }
        let statuses = try clients.map { try $0.readResponse().status }
        XCTAssertEqual(statuses, Array(repeating: 404, count: 40), server.stderrText)
        XCTAssertEqual(try clients[0].request("GET", "/catbird/api/health").status, 200, "the database's files still open")
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertFalse(stderr.contains("[error]"), stderr)
    }
}

/// tester40a-F2 and F3: a connection slot counted one descriptor, but a forwarded request also
/// holds an upstream socket (and a file answer an open file), so parked forwarded requests within
/// every share used up the open-file limit: a freshly started server died with SIGILL (libdispatch
/// could not make its epoll descriptor on first use), and a warmed-up one answered other
/// tenants' forwarded requests and file mocks with errors blaming the upstream and the file.
final class ForwardedOpenFileLimitTests: XCTestCase {
    /// The finding's input: `--nofile=300:300`, redirect mode, eight shards sending 30 requests
    /// each to an upstream that answers after 4 s. The server stays up: the health check and
    /// another tenant's mock answer meanwhile, every parked request gets its upstream's 200 or a
    /// 429 (its share, or all tenants', of half as many slots as before), and it stops cleanly.
    func testParkedForwardedRequestsNeverUseUpTheOpenFileLimit() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else {
            throw XCTSkip("/usr/bin/prlimit (util-linux) is not installed")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-nofile-fwd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try Upstream()
        defer { upstream.stop() }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", "f.sqlite", "--redirect-url", upstream.baseURL, "--upstream-timeout", "20",
             "--log-level", "error"],
            in: directory, openFileLimit: 300)
        let control = try server.client()
        try E2E.addMock(control, tenant: "M", url: "/m/ping", body: "pong")

        var parked: [RawHTTPClient] = []
        for shard in 0..<8 {
            for _ in 0..<30 {
                let client = try RawHTTPClient(port: server.port, timeoutSeconds: 30)
                try client.send(raw: Array("GET /slow/4 HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: P\(shard)\r\nConnection: close\r\n\r\n".utf8))
                parked.append(client)
            }
        }
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(server.process.isRunning, server.stderrText)
        let probe = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        XCTAssertEqual(try probe.request("GET", "/catbird/api/health").status, 200)
        let mock = try probe.request("GET", "/m/ping", headers: [("X-Catbird-Parallel-Id", "M")])
        XCTAssertEqual(mock.status, 200, mock.text)
        XCTAssertEqual(mock.text, "pong")

        var statuses: [Int: Int] = [:]
        for client in parked { statuses[try client.readResponse().status, default: 0] += 1 }
        XCTAssertEqual(Set(statuses.keys).subtracting([200, 429]), [], "\(statuses)")
        XCTAssertGreaterThan(statuses[200] ?? 0, 0, "\(statuses)")
        XCTAssertTrue(server.process.isRunning, server.stderrText)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
    }
}
