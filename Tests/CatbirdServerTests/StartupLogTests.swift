import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What the `catbird` binary's start-up log tells an operator: one line with the modes in
/// effect, and a warning for each `CATBIRD_*` variable it does not read (README.md#configuration).
final class StartupLogTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-startup-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Regression (try7a F9): `CATBIRD_RECORD=1 CATBIRD_MOCK_DIR=/tmp catbird --port … --db :memory:`
    /// started in plain mode without a word. Each unknown name is now warned about with the
    /// variable meant, the server still serves, and variables other Catbird parts read are not
    /// warned about.
    func testUnknownCatbirdVariablesAreWarnedAboutWithTheClosestKnownName() throws {
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory,
            environment: [
                "CATBIRD_RECORD": "1", "CATBIRD_MOCK_DIR": "/tmp", "CATBIRD_PROXY": "yes",
                "CATBIRD_URL": "http://127.0.0.1:8080", "CATBIRD_PARALLEL_ID": "shard-1",
            ])
        XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        let warnings = stderr.split(separator: "\n").filter { $0.contains("[warning] environment variable") }
        XCTAssertEqual(warnings.count, 3, stderr)
        for (unknown, meant) in [
            ("CATBIRD_MOCK_DIR", "CATBIRD_MOCKS_DIR"), ("CATBIRD_PROXY", "CATBIRD_PROXY_ENABLED"),
            ("CATBIRD_RECORD", "CATBIRD_RECORD_MODE"),
        ] {
            XCTAssertTrue(
                stderr.contains(
                    "environment variable \(unknown) is not a Catbird server variable and is ignored (the closest is \(meant);"),
                stderr)
        }
        XCTAssertFalse(stderr.contains("CATBIRD_URL"), stderr)
        XCTAssertFalse(stderr.contains("CATBIRD_PARALLEL_ID"), stderr)
        XCTAssertTrue(
            stderr.contains(
                "modes: redirect off, proxy off, record off, mocks-dir none, files-with-query off, cors off, "
                    + "durability relaxed, admin token none"),
            stderr)
    }

    /// Regression (try7a F9): `--redirect-url … --record --mocks-dir recorded` logged only the
    /// `listening on` line. The modes line names each mode, the mocks directory as an absolute
    /// path, and whether an admin token is set, never the token.
    func testTheModesInEffectAreLoggedOnceWithoutTheToken() throws {
        let token = "s3cret-token-never-logged"
        // A password in the redirect URL is not logged either (review of this change).
        let port = try FreePort.next()
        let upstream = "http://ci:pw-never-logged@127.0.0.1:\(port)/base/"
        let server = try LaunchedServer(
            [
                "--port", "\(try FreePort.next())", "--db", ":memory:", "--redirect-url", upstream, "--record",
                "--mocks-dir", "recorded", "--cors-origin", "http://localhost:3000", "--durability", "strict",
            ],
            in: directory, environment: ["CATBIRD_ADMIN_TOKEN": token])
        // Nor in a forwarded request's 502 (its reason is journaled too) or its log line: the
        // upstream here is a closed port.
        let refused = try RawHTTPClient(port: server.port).request("GET", "/a")
        XCTAssertEqual(refused.status, 502, refused.text)
        XCTAssertTrue(refused.text.contains("ci:***@127.0.0.1"), refused.text)
        XCTAssertFalse(refused.text.contains("pw-never-logged"), refused.text)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        let recorded = directory.appendingPathComponent("recorded").standardizedFileURL.path
        let expected = "[info] modes: redirect http://ci:***@127.0.0.1:\(port)/base/, proxy off, record on, mocks-dir \(recorded), files-with-query off, "
            + "cors http://localhost:3000, durability strict, admin token set"
        XCTAssertEqual(stderr.split(separator: "\n").filter { $0.contains("modes: ") }.map { String($0.drop { $0 != "[" }) }, [expected], stderr)
        XCTAssertFalse(stderr.contains(token), stderr)
        XCTAssertFalse(stderr.contains("pw-never-logged"), stderr)
        XCTAssertFalse(stderr.contains("environment variable"), stderr)
    }

    /// Regression (tester finding T19B-F4, its repro): `catbird --port … --db :memory: --log-level
    /// warning` wrote only the `listening on` line; the `modes:` line that `--help` and README say
    /// follows it was written at `info` only, so no shipped deployment (all at `warning`) had it.
    /// It now follows `listening on` at every level.
    func testTheModesLineFollowsTheListeningLineAtEveryLogLevel() throws {
        for level in ["warning", "error"] {
            let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:", "--log-level", level], in: directory)
            let (status, _, stderr) = try server.terminate()
            XCTAssertEqual(status, 0, stderr)
            let lines = stderr.split(separator: "\n").map { String($0.drop { $0 != "[" }) }
            let listening = try XCTUnwrap(lines.firstIndex { $0.contains("listening on http://127.0.0.1:") }, "\(level): \(stderr)")
            XCTAssertEqual(
                lines.dropFirst(listening + 1).first,
                "[info] modes: redirect off, proxy off, record off, mocks-dir none, files-with-query off, cors off, "
                    + "durability relaxed, admin token none",
                "\(level): \(stderr)")
        }
    }

    /// Regression (T11-F12): `--journal-body-limit 100gb` started without a word, though no
    /// request body is longer than `--max-body-size` and the SQL route's limits grow with it.
    /// It is warned about at start-up (here 400mb: since tester28b-F4, more than 476mb is
    /// refused); a limit within `--max-body-size` is not.
    func testAJournalBodyLimitLargerThanTheBodySizeIsWarnedAbout() throws {
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--journal-body-limit", "400mb"], in: directory)
        XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(
            stderr.contains(
                "[warning] --journal-body-limit (419430400 bytes) is larger than --max-body-size (52428800 bytes): no request "
                    + "body is longer than --max-body-size, so only response bodies are kept past it, and the SQL route's per-value "
                    + "and memory limits grow with the journal body limit (docs/protocol.md#sql)"),
            stderr)
        let within = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:", "--journal-body-limit", "1mb"], in: directory)
        let (_, _, quiet) = try within.terminate()
        XCTAssertFalse(quiet.contains("--journal-body-limit"), quiet)
    }

    /// Tester finding tester42b-F5: a start after a `kill -9` said nothing, although the killed
    /// run's last answered requests may be missing from the journal (relaxed durability). The
    /// start that finds a `-wal` with changes left beside the file says so; one after a clean
    /// stop (which removes it) does not.
    func testAStartAfterAKilledRunSaysSo() throws {
        let database = directory.appendingPathComponent("killed.sqlite").path
        let killed = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        try E2E.addMock(try killed.client(), url: "/k", body: "k")
        XCTAssertEqual(try killed.client().request("GET", "/k").text, "k")
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        let restarted = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        XCTAssertEqual(try restarted.client().request("GET", "/k").text, "k", "the acknowledged mock was kept")
        let (status, _, stderr) = try restarted.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(
            stderr.contains("[warning] database \(database): its -wal (")
                && stderr.contains("bytes) was left by a run that did not stop cleanly (killed or crashed), by a clean stop that "
                    + "could not copy it into the file (whose log says so: a full disk, a busy or read-only file; tester finding "
                    + "tester54c-F4), or by another program; "
                    + "SQLite replays it now: after a kill or a crash, with --durability relaxed, requests that run answered in "
                    + "its last moments may be missing from the journal and the mocks' hits (after a clean stop, nothing is)"),
            stderr)
        let clean = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        let (_, _, quiet) = try clean.terminate()
        XCTAssertFalse(quiet.contains("did not stop cleanly"), quiet)
    }

    /// Regression (tester finding tester34b-F6): `--journal-body-limit 30mb --journal-max-bytes 1mb`
    /// started without a word, and each large upload's row (never fitting in the byte limit) was
    /// pruned about 2 s after it was written. It is warned about at start-up; a byte limit that
    /// holds the largest row (two bodies of the body limit, a 32 KiB head and 64 bytes) is not.
    /// Tester finding tester42b-F7, its exact options: `--journal-body-limit 512kb
    /// --journal-max-bytes 1mb` (two bodies exactly) was not warned, and a row with two cut
    /// bodies was pruned.
    func testAByteLimitSmallerThanOneRowIsWarnedAbout() throws {
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--journal-body-limit", "30mb", "--journal-max-bytes", "1mb"],
            in: directory)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(
            stderr.contains(
                "[warning] --journal-max-bytes (1048576 bytes) is smaller than one journal row can be at --journal-body-limit "
                    + "(31457280 bytes: two bodies of it, a head of up to 32 KiB and 64 bytes a row, 62947392 bytes): a row that "
                    + "large never fits in the limit and is pruned at the next retention pass, before a count or wait can read it; "
                    + "raise --journal-max-bytes or lower --journal-body-limit (docs/operations.md#retention)"),
            stderr)
        let boundary = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--journal-body-limit", "512kb", "--journal-max-bytes", "1mb"],
            in: directory)
        let (_, _, warned) = try boundary.terminate()
        XCTAssertTrue(warned.contains("[warning] --journal-max-bytes (1048576 bytes) is smaller than one journal row"), warned)
        let fitting = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--journal-body-limit", "512kb", "--journal-max-bytes", "2mb"],
            in: directory)
        let (_, _, quiet) = try fitting.terminate()
        XCTAssertFalse(quiet.contains("--journal-max-bytes"), quiet)
    }

    /// Tester finding tester20b-F5: a 1.6 GB database read from disk took 16-40 s to start, with
    /// nothing logged and the port closed (the start-up check reads every page). A file of 200 MB
    /// or more is announced before the check, at every log level; a small one is not.
    func testTheStartUpCheckOfALargeFileIsAnnounced() throws {
        let database = directory.appendingPathComponent("large.sqlite").path
        let first = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database], in: directory)
        XCTAssertEqual(try first.client().request("GET", "/catbird/api/health").status, 200)
        let (firstStatus, _, small) = try first.terminate()
        XCTAssertEqual(firstStatus, 0, small)
        XCTAssertFalse(small.contains("PRAGMA quick_check"), small)
        // 200 MB of free pages: the file grows, its schema stays Catbird's.
        let padded = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [database, "CREATE TABLE pad(b); INSERT INTO pad VALUES (zeroblob(200000000)); DROP TABLE pad;"], in: directory)
        XCTAssertEqual(padded.status, 0, padded.stderr)
        let large = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "error"], in: directory)
        XCTAssertEqual(try large.client().request("GET", "/catbird/api/health").status, 200)
        let (status, _, stderr) = try large.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains("checking \(database) (2"), stderr)
        XCTAssertTrue(stderr.contains(" MB) with PRAGMA quick_check before listening: about 0.3 s per 200 MB"), stderr)
    }

    /// Tester finding T14B-F10, the exact inputs: `--files-with-query` without `--mocks-dir`,
    /// `--upstream-timeout 5` or `--upstream-ca-file …` without `--redirect-url` or `--proxy`
    /// started without a word, though each does nothing then. Each is warned about at start-up,
    /// naming what is missing (not refused: a CI template may pass them always); with what
    /// they need, nothing is said.
    func testOptionsThatCannotTakeEffectAreWarnedAbout() throws {
        let caFile = "/etc/ssl/certs/ca-certificates.crt"
        let cases: [(arguments: [String], warning: String)] = [
            (["--files-with-query"], "[warning] --files-with-query has no effect without --mocks-dir (CATBIRD_MOCKS_DIR): no file mocks are served"),
            (["--upstream-timeout", "5"], "[warning] --upstream-timeout has no effect without --redirect-url or --proxy: nothing is forwarded"),
            (["--upstream-ca-file", caFile], "[warning] --upstream-ca-file has no effect without --redirect-url or --proxy: nothing is forwarded"),
        ]
        for (arguments, warning) in cases {
            let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:"] + arguments, in: directory)
            XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200)
            let (status, _, stderr) = try server.terminate()
            XCTAssertEqual(status, 0, stderr)
            XCTAssertEqual(stderr.components(separatedBy: warning).count, 2, "\(arguments), once: \(stderr)")
        }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("files"), withIntermediateDirectories: true)
        let effective = try LaunchedServer(
            [
                "--port", "\(try FreePort.next())", "--db", ":memory:", "--files-with-query", "--mocks-dir", "files",
                "--redirect-url", "http://127.0.0.1:9/", "--upstream-timeout", "5", "--upstream-ca-file", caFile,
            ], in: directory)
        let (status, _, stderr) = try effective.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertFalse(stderr.contains("has no effect"), stderr)
    }

    /// Regression (T14B-F1): `catbird --port 0 --db … --log-level warning` wrote nothing, so the
    /// port the system chose could only be found with `ss`. The `listening on` line is written at
    /// every level, and the URL in it answers.
    func testThePortChosenForPortZeroIsAnnouncedAtEveryLogLevel() throws {
        for level in ["warning", "error"] {
            let process = Process()
            process.executableURL = try BuiltProducts.executable(named: "catbird")
            process.arguments = ["--port", "0", "--db", directory.appendingPathComponent("\(level).sqlite").path, "--log-level", level]
            process.environment = LaunchedServer.childEnvironment([:])
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
            var output = ""
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, process.isRunning, !output.contains("\n") {
                output += String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
            }
            let prefix = "listening on http://127.0.0.1:"
            let start = try XCTUnwrap(output.range(of: prefix), "\(level): \(output)")
            let port = try XCTUnwrap(UInt16(output[start.upperBound...].prefix { $0.isNumber }), output)
            XCTAssertNotEqual(port, 0, output)
            // Its first line: the modes line follows it at every level too (T19B-F4), maybe in the same read.
            XCTAssertTrue(output.prefix { $0 != "\n" }.hasSuffix("(database: \(directory.appendingPathComponent("\(level).sqlite").path))"), output)
            XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200, output)
        }
    }
}
