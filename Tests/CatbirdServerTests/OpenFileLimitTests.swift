import CatbirdServer
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
            XCTAssertTrue(result.stderr.contains("Catbird needs at least 157 at 2 worker threads"), "limit \(limit): \(result.stderr)")
            for blame in ["cannot be opened", "unable to open database file", "port in use"] {
                XCTAssertFalse(result.stderr.contains(blame), "limit \(limit): \(result.stderr)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("f2.sqlite").path), "limit \(limit)")
        }
    }

    /// Tester finding tester46b-F9, its input: `ulimit -n 108` passed the check at 2 worker
    /// threads (it counted 44 own files; the server holds 61), and 200 connections over 8
    /// tenants ran the process out of descriptors: the journal writer could not open SQLite's
    /// files (`cantopen`) and dropped 97 % of the rows, the connection limit "never reached".
    /// 108 is refused now; at the least limit let through (157) the same load is held to the
    /// connection limit, and no row is dropped.
    func testAtTheLeastLimitAllowedALoadPastTheConnectionLimitDropsNoJournalRow() throws {
        let refused = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/prlimit"),
            ["--nofile=108:108", try BuiltProducts.executable(named: "catbird").path, "--port", "\(try FreePort.next())", "--db", "r.sqlite",
             "--threads", "2"],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", "f.sqlite", "--threads", "2", "--log-level", "warning"], in: directory,
            openFileLimit: 157)
        let control = try server.client()
        let tenants = (0..<8).map { "t\($0)" }
        for tenant in tenants {
            try E2E.addMock(control, tenant: tenant, url: "/x", body: "hi")
        }
        let answered = Locked<[String: Int]>([:])
        let port = server.port
        let done = DispatchGroup()
        for index in 0..<200 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let tenant = tenants[index % 8]
                guard let client = try? RawHTTPClient(port: port, timeoutSeconds: 20) else { return }
                for _ in 0..<20 {
                    guard let answer = try? client.request("GET", "/x", headers: [("X-Catbird-Parallel-Id", tenant)]), answer.status == 200
                    else { return }
                    answered.change { $0[tenant, default: 0] += 1 }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let probe = try server.client()
        let metrics = try E2E.metrics(probe)
        XCTAssertEqual(metrics["catbird_journal_dropped_rows_total"], 0, server.stderrText)
        // Past the connection limit (64 at this limit) some clients wait or are closed; those in answer.
        XCTAssertGreaterThan(answered.value.values.reduce(0, +), 64 * 20 / 2, "\(answered.value)")
        XCTAssertGreaterThan(metrics["catbird_connection_limit_reached_total"] ?? 0, 0, "the connection limit was what held the load")
        for tenant in tenants {
            XCTAssertEqual(try E2E.count(probe, tenant: tenant, patternJSON: #"{"method":"GET","url":{"kind":"equal","value":"/x"}}"#),
                           answered.value[tenant] ?? 0, tenant)
        }
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertFalse(stderr.contains("cantopen"), stderr)
        XCTAssertFalse(stderr.contains("[error]"), stderr)
    }

    /// Tester finding tester46b-F3: with `--mocks-dir` (and `--redirect-url`, `--proxy`) a
    /// client connection may hold two descriptors, so the connection limit is halved; the
    /// check still asked for room for 64 one-descriptor clients, and such a server started
    /// with room for 32, silently. It asks for 64 of two descriptors now.
    func testAModeWhoseClientsHoldTwoDescriptorsNeedsRoomForSixtyFourOfThem() throws {
        let mocks = directory.appendingPathComponent("mocks")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/prlimit"),
            ["--nofile=157:157", try BuiltProducts.executable(named: "catbird").path, "--port", "\(try FreePort.next())", "--db", "m.sqlite",
             "--threads", "2", "--mocks-dir", mocks.path],
            in: directory, environment: LaunchedServer.childEnvironment([:]), seconds: 30)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains(
            "Catbird needs at least 221 at 2 worker threads (93 for its database connections, listening socket, workers and the files it "
                + "opens under load, and room for 64 client connections of 2 descriptors each"), result.stderr)
    }

    /// The descriptors a server holds when idle, after requests, a SQL query, a HAR export and
    /// a journal long poll, are no more than ``CatbirdServer/idleDescriptors(threads:)`` counts,
    /// which the open-file limit is checked against: it had gone stale (tester finding
    /// tester46b-F9: 61 held, 44 counted).
    func testAServerHoldsNoMoreDescriptorsThanItsLimitLeavesItself() throws {
        for threads in [1, 2, 8] {
            let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "d\(threads).sqlite", "--threads", "\(threads)"], in: directory)
            let client = try server.client()
            try E2E.addMock(client, tenant: "a", url: "/x", body: "hi")
            for _ in 0..<20 { _ = try client.request("GET", "/x", headers: [("X-Catbird-Parallel-Id", "a")]) }
            XCTAssertEqual(try client.json("POST", "/catbird/api/sql", #"{"sql":"SELECT count(*) FROM requests"}"#,
                                           headers: [("X-Catbird-Parallel-Id", "a")]).status, 200)
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", "a")]).status, 200)
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests?since=1000000&wait=0.2", headers: [("X-Catbird-Parallel-Id", "a")]).status, 200)
            let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.processIdentifier)/fd").count
            // Less the probe's own connection to the server.
            XCTAssertLessThanOrEqual(held - 1, CatbirdServer.idleDescriptors(threads: threads), "\(threads) threads")
            XCTAssertGreaterThan(held - 1, CatbirdServer.idleDescriptors(threads: threads) - 8, "\(threads) threads: the count is not far too high either")
            _ = try server.terminate()
        }
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
