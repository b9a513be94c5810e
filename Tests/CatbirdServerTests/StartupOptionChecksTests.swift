import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Every option that names a path or resource is checked before the database is touched, and a
/// bad environment value is refused as a bad flag value is (issue 9, found by a new user: a
/// missing mocks directory was found after the database had been created and migrated, a CA file
/// that is not PEM started without complaint, `CATBIRD_CORS=banana` meant off).
final class StartupOptionChecksTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Regression: `--mocks-dir /nonexistent` logged "applied migrations" and left cli.sqlite,
    /// -wal and -shm behind; a file given as the directory did the same.
    func testAMocksDirectoryThatIsMissingOrAFileIsRefusedBeforeTheDatabase() throws {
        let file = directory.appendingPathComponent("plain.txt")
        try Data("x".utf8).write(to: file)
        for (given, words) in [("/nonexistent", "does not exist"), (file.path, "is a file, not a directory")] {
            let result = try run(["--port", "\(try FreePort.next())", "--db", "cli.sqlite", "--mocks-dir", given])
            XCTAssertEqual(result.status, 2, result.output)
            XCTAssertTrue(result.stderr.contains("--mocks-dir: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
            XCTAssertFalse(result.stderr.contains("applied migrations"), result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["plain.txt"], given)
        }
    }

    /// Regression (tester finding tester42b-F12): a database file name of 248 to 255 bytes, or an
    /// absolute path over about 505 bytes, failed with SQLite's bare "unable to open database
    /// file". Refused before anything is touched, saying why; 247 bytes start.
    func testADatabaseNameTooLongForItsCompanionsIsRefused() throws {
        for length in [248, 255] {
            let name = String(repeating: "n", count: length - 7) + ".sqlite"
            let result = try run(["--port", "\(try FreePort.next())", "--db", name])
            XCTAssertEqual(result.status, 2, result.output)
            XCTAssertTrue(
                result.stderr.contains("the database's file name is \(length) bytes: SQLite keeps ")
                    && result.stderr.contains("a file name may have at most 255 bytes; use a name of at most 247 bytes"),
                result.stderr)
        }
        let deep = "/" + String(repeating: "d", count: 250) + "/" + String(repeating: "e", count: 250) + "/db.sqlite"
        let path = try run(["--port", "\(try FreePort.next())", "--db", deep])
        XCTAssertEqual(path.status, 2, path.output)
        XCTAssertTrue(path.stderr.contains("the database's absolute path is 512 bytes: SQLite opens at most 512 bytes of path"), path.stderr)
        let fits = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", String(repeating: "n", count: 240) + ".sqlite"], in: directory)
        XCTAssertEqual(try fits.terminate().status, 0)
    }

    /// Regression (tester finding tester42b-F14): `--mocks-dir .` beside the default
    /// `catbird.sqlite` let any shard download the database and its `-wal` (every tenant's mocks
    /// and journal) as file mocks, and in record mode one request for `/catbird.sqlite` wrote
    /// the upstream's answer over the live database, which then never started again. A database
    /// inside the mocks directory (the default one, one in a folder below it, one reached through
    /// a symbolic link to it, and `:memory:`'s file in a temporary folder that is the mocks
    /// directory) is refused before anything is touched; one beside it is not.
    func testADatabaseInsideTheMocksDirectoryIsRefused() throws {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("fixtures/db"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("link"), withDestinationURL: directory.appendingPathComponent("fixtures"))
        let cases: [(arguments: [String], environment: [String: String])] = [
            (["--mocks-dir", "."], [:]),
            (["--mocks-dir", "fixtures", "--db", "fixtures/db/catbird.sqlite"], [:]),
            (["--mocks-dir", "link", "--db", "fixtures/catbird.sqlite"], [:]),
            (["--mocks-dir", "fixtures", "--record", "--redirect-url", "http://127.0.0.1:9", "--db", "link/catbird.sqlite"], [:]),
            (["--mocks-dir", directory.path, "--db", ":memory:"], ["TMPDIR": directory.path]),
        ]
        for (arguments, environment) in cases {
            let result = try run(["--port", "\(try FreePort.next())"] + arguments, environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("lies inside --mocks-dir"), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("choose a --db outside the mocks directory"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("catbird.sqlite").path), "nothing was made")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("fixtures/catbird.sqlite").path))
        // Beside the mocks directory: served as before.
        let beside = try LaunchedServer(["--port", "\(try FreePort.next())", "--mocks-dir", "fixtures", "--db", "catbird.sqlite"], in: directory)
        XCTAssertEqual(try RawHTTPClient(port: beside.port).request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try beside.terminate().status, 0)
    }

    /// Regression (tester finding tester36a-F5): record mode with `--mocks-dir afile/sub`, where
    /// `afile` is a file, opened and migrated the database, then exited 1 with "mocks directory
    /// 'afile/sub' does not exist or is not a directory". Now it exits 2 before the database,
    /// naming the file in the way; a missing directory it can make is made, parents included.
    func testARecordingDirectoryThatCannotBeCreatedIsRefusedBeforeTheDatabase() throws {
        let file = directory.appendingPathComponent("afile")
        try Data("x".utf8).write(to: file)
        let result = try run([
            "--port", "\(try FreePort.next())", "--db", "cli.sqlite", "--record", "--redirect-url", "http://127.0.0.1:9",
            "--mocks-dir", file.path + "/sub",
        ])
        XCTAssertEqual(result.status, 2, result.output)
        XCTAssertTrue(
            result.stderr.contains("--mocks-dir: the directory '\(file.path)/sub' does not exist and record mode cannot create it: '\(file.path)' is a file, not a directory"),
            result.stderr)
        XCTAssertFalse(result.stderr.contains("applied migrations"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["afile"])
    }

    /// Regression: `--upstream-ca-file /etc/passwd` started without complaint.
    func testAnUpstreamCAFileWithoutAPEMCertificateIsRefused() throws {
        for path in ["/etc/passwd", directory.path, "/no/such/ca.pem"] {
            let result = try run(["--port", "\(try FreePort.next())", "--db", "cli.sqlite", "--redirect-url", "https://127.0.0.1:9", "--upstream-ca-file", path])
            XCTAssertEqual(result.status, 2, "\(path): \(result.output)")
            XCTAssertTrue(result.stderr.contains("--upstream-ca-file: '\(path)'"), result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], path)
        }
        XCTAssertTrue(try run(["--upstream-ca-file", "/etc/passwd"]).stderr.contains("holds no PEM certificate"))
    }

    /// Regression (tester finding tester54c-F5, its exact hosts): `--host ::ffff:127.0.0.1` and
    /// `--host fe80::1` failed at the listen with a bare "Invalid argument" and exit 1 (the
    /// status a supervisor restarts on); now exit 2 before anything is touched, naming why and
    /// what to give instead.
    func testAHostNoSocketCanListenOnIsRefusedAsAnOption() throws {
        let cases = [
            ("::ffff:127.0.0.1", "it is an IPv4-mapped IPv6 address, which a socket listening for IPv6 only never takes "
                + "(this server listens on an IPv6 address for IPv6 only): listen on the IPv4 address itself, --host 127.0.0.1"),
            ("fe80::1", "it is a link-local IPv6 address, which needs the interface it is on after a '%' (such as fe80::1%eth0)"),
        ]
        for (host, reason) in cases {
            let result = try run(["--host", host, "--port", "\(try FreePort.next())", "--db", "cli.sqlite"])
            XCTAssertEqual(result.status, 2, result.output)
            XCTAssertTrue(result.stderr.contains("--host: cannot listen on '\(host)': \(reason)"), result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], host)
        }
    }

    /// Regression: `--host 999.1.1.1` first warned "listening on 999.1.1.1 without an admin
    /// token", then failed to resolve.
    func testAHostThatDoesNotResolveIsRefusedBeforeTheWarning() throws {
        let result = try run(["--host", "999.1.1.1", "--port", "\(try FreePort.next())", "--db", "cli.sqlite"])
        XCTAssertEqual(result.status, 2, result.output)
        XCTAssertTrue(result.stderr.contains("--host: cannot resolve host '999.1.1.1'"), result.stderr)
        XCTAssertFalse(result.stderr.contains("without an admin token"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    /// Regression (try5 finding 8c): `--host 1.2.3.4` (an address of no interface here) warned
    /// "listening on 1.2.3.4 without an admin token", then failed with "(choose another --port)".
    /// Now the hint names the host, and nothing claims to listen.
    func testAHostThatIsNotAnAddressOfThisMachineIsBlamedNotThePort() throws {
        let result = try run(["serve", "--host", "1.2.3.4", "--port", "\(try FreePort.next())", "--db", "cli.sqlite"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.stderr.contains("cannot listen on 1.2.3.4:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("choose another --host"), result.stderr)
        XCTAssertFalse(result.stderr.contains("choose another --port"), result.stderr)
        XCTAssertFalse(result.stderr.contains("without an admin token"), result.stderr)
    }

    /// The same checks for a server made in code: thrown before the database file exists.
    func testTheLibraryChecksTheSameOptionsFirst() throws {
        let database = directory.appendingPathComponent("lib.sqlite").path
        var settings = CatbirdServer.Settings(port: 0, databasePath: database, logLevel: .error)
        settings.mocksDirectory = "/nonexistent"
        XCTAssertThrowsError(try CatbirdServer(settings: settings)) { error in
            XCTAssertTrue(error is UnusableOption, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: database))
    }

    /// Regression: `CATBIRD_CORS=banana` silently meant off, while `--cors=banana` exits 2.
    func testASwitchVariableThatIsNeitherOnNorOffIsRefused() throws {
        for variable in ["CATBIRD_CORS", "CATBIRD_PROXY_ENABLED", "CATBIRD_RECORD_MODE", "CATBIRD_FILES_WITH_QUERY"] {
            let result = try run(["--port", "\(try FreePort.next())", "--db", "cli.sqlite"], environment: [variable: "banana"])
            XCTAssertEqual(result.status, 2, "\(variable): \(result.output)")
            XCTAssertTrue(
                result.stderr.contains("\(variable) must be 1, true, yes or on to turn it on, or 0, false, no or off to turn it off, not 'banana'"),
                result.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
        let off = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory, environment: ["CATBIRD_CORS": "No"])
        let preflight = try off.client().request("OPTIONS", "/x", headers: [("Origin", "http://a.test"), ("Access-Control-Request-Method", "GET")])
        XCTAssertNil(preflight.header("Access-Control-Allow-Origin"), "CATBIRD_CORS=No is off")
        XCTAssertEqual(try off.terminate().status, 0)
        // The same preflight with CATBIRD_CORS=Yes is answered with CORS fields, so "No is off"
        // cannot pass because every value means off.
        let on = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory, environment: ["CATBIRD_CORS": "Yes"])
        let onPreflight = try on.client().request("OPTIONS", "/x", headers: [("Origin", "http://a.test"), ("Access-Control-Request-Method", "GET")])
        XCTAssertEqual(onPreflight.status, 204, onPreflight.text)
        XCTAssertEqual(onPreflight.header("Access-Control-Allow-Origin"), "http://a.test", "CATBIRD_CORS=Yes is on")
        XCTAssertEqual(try on.terminate().status, 0)
        // Regression (tester finding tester30a-F9): `on` and `off`, as the modes line writes
        // them, were refused with a message that seemed to list them.
        for (value, mode) in [("on", "cors any origin"), ("OFF", "cors off")] {
            let server = try LaunchedServer(
                ["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory, environment: ["CATBIRD_CORS": value])
            let stopped = try server.terminate()
            XCTAssertEqual(stopped.status, 0, stopped.stderr)
            XCTAssertTrue(stopped.stderr.contains(mode + ","), "CATBIRD_CORS=\(value): \(stopped.stderr)")
        }
    }

    /// Regression: `--host 0.0.0.0` logged `listening on http://0.0.0.0:18098`, which no client
    /// can use; `--tenant-ttl 0s` was refused while `0` and `off` worked.
    func testAWildcardHostIsLoggedAsLoopbackAndAZeroTTLTakesAUnit() throws {
        let port = try FreePort.next()
        let server = try LaunchedServer(["--host", "0.0.0.0", "--port", "\(port)", "--db", ":memory:", "--tenant-ttl", "0s", "--admin-token", "t"], in: directory)
        let info = try server.client().request("GET", "/catbird/api/info")
        let stopped = try server.terminate()
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("listening on http://127.0.0.1:\(port) "), stopped.stderr)
        let retention = info.object["retention"] as? [String: Any] ?? [:]
        XCTAssertTrue(retention.keys.contains("tenantTTLSeconds") && retention["tenantTTLSeconds"] is NSNull, info.text)
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(
            try BuiltProducts.executable(named: "catbird"), arguments, in: directory,
            environment: LaunchedServer.childEnvironment(environment), seconds: 30)
    }
}
