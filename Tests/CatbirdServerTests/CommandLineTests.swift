import CatbirdStorage
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The `catbird` executable as users run it: flags, environment, logging, SIGTERM shutdown,
/// and a database that keeps everything across runs.
final class CommandLineTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: - Flags that do not start a server

    func testHelpPrintsUsageAndExitsZero() throws {
        for flag in ["--help", "-h"] {
            let result = try run([flag])
            XCTAssertEqual(result.status, 0, flag)
            XCTAssertTrue(result.stdout.hasPrefix("USAGE: catbird"), "\(flag): \(result.stdout)")
            XCTAssertTrue(result.stdout.contains("--max-body-size"), flag)
            XCTAssertTrue(result.stdout.contains("SIGTERM"), flag)
            // Regression (tester finding tester30a-F1): the help left out three stop signals, the
            // refusal of --help with other arguments and the `warn` level, all in README.
            XCTAssertTrue(result.stdout.contains("SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU or SIGPWR stops the server"), flag)
            XCTAssertTrue(result.stdout.contains("--help or --version with other arguments"), flag)
            XCTAssertTrue(result.stdout.contains("warning (or warn)"), flag)
            // Regression (tester finding tester58b-F2): --admin-token's line named only the
            // cross-tenant routes, while the token guards the default tenant's mocks and journal
            // clear too, every 0.11 client's update (README's configuration table).
            let flattened = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(flattened.contains("every change of the default tenant's mocks (update, remove, removeAll without a parallel id) and its journal clear"), flag)
        }
    }

    func testVersionPrintsTheVersion() throws {
        let result = try run(["--version"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout, "catbird \(CatbirdServer.version)\n")
        XCTAssertTrue(E2E.matches(CatbirdServer.version, #"^\d+\.\d+\.\d+$"#))
    }

    func testABadFlagExitsTwoWithAMessage() throws {
        let cases: [(arguments: [String], message: String)] = [
            (["--no-such-flag"], "unknown option '--no-such-flag'"),
            (["--port", "http"], "port must be 0...65535, not 'http'"),
            (["--port", "70000"], "port must be 0...65535, not '70000'"),
            (["--log-level", "loud"], "log level must be debug, info, warning or error, not 'loud'"),
            (["--max-body-size", "lots"], "max body size"),
            (["--port"], "option '--port' needs a value"),
            // tester21b-F1: `--db --help` served on port 8080 with a database file named `--help`.
            (["--db", "--help"], "option '--db' needs a value, and '--help' after it is an option: give the value first, or as --db=--help if that is the value"),
            (["--port", "--db", "f.sqlite"], "option '--port' needs a value, and '--db' after it is an option"),
            (["--db", "--port", "19401"], "option '--db' needs a value, and '--port' after it is an option"),
            (["stray"], "unexpected argument 'stray'"),
            // T11-F10: `-h extra` printed the help and exited 0 while `--version extra` was refused.
            (["-h", "extra"], "'-h' takes no other arguments: run `catbird --help` alone"),
            (["--port", "1", "--help"], "'--help' takes no other arguments: run `catbird --help` alone"),
            (["--redirect-url", "ftp://example.com"], "redirect URL must be an http:// or https:// URL"),
            (["--redirect-url", "http://example.com/?q=1"], "redirect URL must be an http:// or https:// URL with a host and no query, not 'http://example.com/?q=1'"),
            // tester64a-F2: a fragment was refused as "no query".
            (["--redirect-url", "http://example.com/api#top"],
             "redirect URL must be an http:// or https:// URL with a host and no fragment ('#…'), not 'http://example.com/api#top'"),
            (["--redirect-url", "http://example.com/?q=1#top"],
             "redirect URL must be an http:// or https:// URL with a host and no fragment ('#…'), not 'http://example.com/?q=1#top'"),
            // T15B-F13: accepted, then every forwarded request was a 502 `URL using bad/illegal format`.
            (["--redirect-url", "http://127.0.0.1:19290/a b"],
             "redirect URL 'http://127.0.0.1:19290/a b' cannot be forwarded to: a space at byte 24 cannot be sent in a URL as is: write it percent-encoded"),
            (["--redirect-url", "http://127.0.0.1:19290/%zz"],
             "redirect URL 'http://127.0.0.1:19290/%zz' cannot be forwarded to: '%zz' at byte 23 is not a percent-escape (% and two hex digits; a % itself is written %25)"),
            // tester23a-F5: accepted, then every forwarded request was a 502 `URL using bad/illegal format`.
            (["--redirect-url", "http://127.0.0.1:99999"],
             "redirect URL 'http://127.0.0.1:99999' cannot be forwarded to: its port 99999 is not a TCP port a connection can be made to (1 to 65535)"),
            (["--redirect-url", "http://127.0.0.1:0/api"],
             "redirect URL 'http://127.0.0.1:0/api' cannot be forwarded to: its port 0 is not a TCP port a connection can be made to (1 to 65535)"),
            // tester24a-F4: a port past Int.max has no URLComponents.port, so it got through.
            (["--redirect-url", "http://127.0.0.1:9223372036854775808"],
             "redirect URL 'http://127.0.0.1:9223372036854775808' cannot be forwarded to: its port 9223372036854775808 is not a TCP port a connection can be made to (1 to 65535)"),
            (["--redirect-url", "http://user:pw@[::1]:70000/api"],
             "redirect URL 'http://user:***@[::1]:70000/api' cannot be forwarded to: its port 70000 is not a TCP port a connection can be made to (1 to 65535)"),
            (["--record", "--proxy"], "record mode writes file mocks: give --mocks-dir"),
            (["--record", "--mocks-dir", "m"], "give --redirect-url or --proxy"),
            (["--proxy=yes"], "option '--proxy' takes no value"),
            (["--upstream-timeout", "0"], "upstream timeout must be seconds"),
            // tester44a-F4: hex floats, exponents and signs were taken by Double(_:).
            (["--upstream-timeout", "0x10"], "upstream timeout must be seconds in decimal digits (30, 30s, 0.5), more than 0 and at most 3600, not '0x10'"),
            (["--upstream-timeout", "0x1p-3"], "upstream timeout must be seconds in decimal digits"),
            (["--upstream-timeout", "1e-9"], "upstream timeout must be seconds in decimal digits"),
            (["--upstream-timeout", "+5"], "upstream timeout must be seconds in decimal digits"),
            (["--upstream-timeout", "inf"], "upstream timeout must be seconds in decimal digits"),
            (["--upstream-timeout", "3600.001"], "upstream timeout must be seconds in decimal digits"),
            (["--max-tenant-mocks", "0"], "max tenant mocks must be at least 1, or off for no limit; not '0'"),
            // tester42b-F11: 0 and numbers past 64 bits were told they were no number or size at all.
            (["--max-tenant-mock-bytes", "0"], "max tenant mock bytes must be at least 1, or off for no limit; not '0'"),
            (["--max-tenant-mock-bytes", "0kb"], "max tenant mock bytes must be at least 1, or off for no limit; not '0kb'"),
            (["--journal-max-rows", "99999999999999999999"], "journal-max-rows is too large a number (at most 9223372036854775807); not '99999999999999999999'"),
            (["--max-body-size", "99999999999999999999"], "max body size is too large a number (at most 9223372036854775807); not '99999999999999999999'"),
            (["--max-body-size", "9007199254740992kb"], "max body size is too large a number (at most 9223372036854775807); not '9007199254740992kb'"),
            // tester50c-F1, the exact cases: a unit on a count, or a space, was called too large.
            (["--journal-max-rows", "1mb"], "journal-max-rows must be a whole number of rows, or 0 or off; not '1mb'"),
            (["--journal-max-rows", " 10"], "journal-max-rows must be a whole number of rows, or 0 or off; not ' 10'"),
            // tester54a-F6, its exact case: 0 (no limit) is taken, but the refusal said "at least 1".
            (["--journal-max-rows", "-1"], "journal-max-rows must be at least 1, or 0 or off for no limit; not '-1'"),
            (["--tenant-ttl", "90"], "tenant-ttl must be a whole number with s, m, h or d (90s, 30m, 12h, 7d), or 0 or off for no limit; not '90'"),
            (["--max-tenant-mocks", " 5"], "max tenant mocks must be a whole number of mocks from 1, or off; not ' 5'"),
            // tester50c-F2: the options exist, and take no value.
            (["--help=x"], "option '--help' takes no value"),
            (["--version=1"], "option '--version' takes no value"),
            (["--cors-origin", "http://app.test/"], "CORS origin must be '*' or an origin such as http://localhost:3000 (scheme, host, optional port, no path), not 'http://app.test/'"),
            (["--cors-origin", "http://app.test,"], "CORS origin must be '*' or an origin such as http://localhost:3000 (scheme, host, optional port, no path), not ''"),
            (["--allowed-host", "ci-mocks.internal:8080"], "allowed host must be '*' or a host name such as ci-mocks.internal (no scheme, port or path), not 'ci-mocks.internal:8080'"),
            (["--allowed-host", "a.test,,b.test"], "allowed host must be '*' or a host name such as ci-mocks.internal (no scheme, port or path), not ''"),
            (["--max-tenant-mock-bytes", "lots"], "max tenant mock bytes must be bytes or a size like 512mb, 1gb, or off; not 'lots'"),
            (["--max-buffered-bodies", "1mb"], "max buffered bodies must be at least --max-body-size (52428800 bytes)"),
            (["--max-buffered-bodies", "lots"], "max buffered bodies must be bytes or a size like 400mb, 2gb, not 'lots'"),
            (["--head-timeout", "0"], "head timeout must be whole seconds from 1 to 3600 (30 or 30s), or off; not '0'"),
            (["--head-timeout", "30m"], "head timeout must be whole seconds from 1 to 3600 (30 or 30s), or off; not '30m'"),
            // tester28b-F4: accepted, then a 1.05 GB upload's journal row failed SQLITE_TOOBIG and was lost.
            (["--max-body-size", "2gb", "--journal-body-limit", "2gb"],
             "journal body limit must be at most 476mb (499122176 bytes), not '2gb': a journal row holds a request and a response body, and SQLite stores at most 1,000,000,000 bytes in a row"),
            (["--journal-body-limit", "499122177"], "journal body limit must be at most 476mb (499122176 bytes), not '499122177'"),
            // tester34b-F5: a whole number with a unit past the cap was refused as a wrong form.
            (["--tenant-ttl", "36501d"], "tenant-ttl must be at most 36500d (100 years), or 0 or off for no limit; not '36501d'"),
            (["--journal-max-age", "3153600001s"], "journal-max-age must be at most 36500d (100 years), or 0 or off for no limit; not '3153600001s'"),
            (["--tenant-ttl", "99999999999999999999d"], "tenant-ttl must be at most 36500d (100 years), or 0 or off for no limit"),
            (["--tenant-ttl", "7x"], "tenant-ttl must be a whole number with s, m, h or d (90s, 30m, 12h, 7d), or 0 or off for no limit; not '7x'"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("USAGE: catbird"), "\(arguments): the message, not the whole usage")
            XCTAssertEqual(
                result.stderr, "catbird: \(result.stderr.dropFirst(9).prefix { $0 != "\n" })\nRun 'catbird --help' for the options.\n",
                "\(arguments): one line and the hint")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
        let fromEnvironment = try run([], environment: ["CATBIRD_PORT": "eighty"])
        XCTAssertEqual(fromEnvironment.status, 2)
        XCTAssertTrue(fromEnvironment.stderr.contains("port must be 0...65535, not 'eighty'"), fromEnvironment.stderr)
    }

    /// Regression: `CATBIRD_DB=` (empty) silently served from ./catbird.sqlite (creating it)
    /// while `--db ''` exited 2; `CATBIRD_PORT=` was ignored; `--version extra` exited 0;
    /// `--port 19102 --port 19103` took the last. Each now exits 2 with one clear line, and
    /// nothing is created.
    func testEmptyVariablesRepeatedOptionsAndExtraArgumentsExitTwo() throws {
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            ([], ["CATBIRD_DB": ""], "CATBIRD_DB is set but empty: give it a value or unset it"),
            ([], ["CATBIRD_PORT": ""], "CATBIRD_PORT is set but empty"),
            ([], ["CATBIRD_CORS": ""], "CATBIRD_CORS is set but empty"),
            (["--port", "0"], ["CATBIRD_MOCKS_DIR": ""], "CATBIRD_MOCKS_DIR is set but empty"),
            (["--version", "extra"], [:], "'--version' takes no other arguments"),
            (["--port", "0", "--version"], [:], "'--version' takes no other arguments"),
            (["--port", "19102", "--port", "19103"], [:], "option '--port' is given more than once"),
            (["--db=a.sqlite", "--db", "b.sqlite"], [:], "option '--db' is given more than once"),
            (["--cors", "--cors"], [:], "option '--cors' is given more than once"),
        ]
        for (arguments, environment, message) in cases {
            let result = try run(arguments, environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments) \(environment): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments) \(environment): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no database file was created")
        XCTAssertEqual(try run(["serve", "--version"]).status, 0, "serve --version still prints the version")
    }

    /// Regression (tester21b-F12): a bad value was echoed raw, so `--port $'1\x1b[2J\x1b[31mX'`
    /// cleared and recoloured the terminal and `CATBIRD_LOG_LEVEL=$'x\ny'` printed the
    /// "one line" as two. The line is now escaped as the running server's log is.
    func testABadValueIsEchoedEscapedOnOneLine() throws {
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (["--port", "1\u{1b}[2J\u{1b}[31mX"], [:], #"port must be 0...65535, not '1\x1b[2J\x1b[31mX'"#),
            ([], ["CATBIRD_LOG_LEVEL": "x\ny"], #"CATBIRD_LOG_LEVEL: log level must be debug, info, warning or error, not 'x\x0ay'"#),
            (["--mocks-dir", "no\nsuch"], [:], #"no\x0asuch"#),
        ]
        for (arguments, environment, message) in cases {
            let result = try run(arguments, environment: environment)
            XCTAssertEqual(result.status, 2, "\(arguments) \(environment): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments) \(environment): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("\u{1b}"), "no raw escape: \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 2, "the message and the pointer to --help: \(result.stderr)")
        }
    }

    /// Regression: the variables were checked before the arguments, so an empty `CATBIRD_*`
    /// variable made `--help` exit 2; and in Dictionary order, so with two bad ones the one
    /// named changed from run to run. Now `--help` and `--version` answer whatever the
    /// environment, and the variables are checked in the order of their names.
    func testHelpIgnoresTheEnvironmentAndTheFirstBadVariableByNameIsNamed() throws {
        let empty = ["CATBIRD_PORT": "", "CATBIRD_THREADS": "", "CATBIRD_DB": ""]
        for flag in ["--help", "-h"] {
            let result = try run([flag], environment: empty)
            XCTAssertEqual(result.status, 0, "\(flag): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("USAGE: catbird"), "\(flag): \(result.stdout)")
        }
        XCTAssertEqual(try run(["--version"], environment: empty).stdout, "catbird \(CatbirdServer.version)\n")
        // Six runs: in a per-process Dictionary order, the same one of three would come first
        // every time once in 729 ((1/3)^6).
        for _ in 0..<6 {
            let result = try run([], environment: empty)
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("catbird: CATBIRD_DB is set but empty"), result.stderr)
        }
        let badSwitches = try run([], environment: ["CATBIRD_PROXY_ENABLED": "maybe", "CATBIRD_CORS": "banana"])
        XCTAssertTrue(badSwitches.stderr.hasPrefix("catbird: CATBIRD_CORS must be 1, true, yes or on"), badSwitches.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no database file was created")
    }


    func testServesLogsEveryRequestAndKeepsTheJournalAcrossSIGTERM() throws {
        let database = directory.appendingPathComponent("x.sqlite").path
        let server = try launch(["--port", "\(try freePort())", "--db", database, "--log-level", "info"])
        let client = try server.client()
        try E2E.addMock(client, url: "/cli/*", kind: "wildcard", body: "from the binary")
        for index in 0..<50 {
            let response = try client.request("GET", "/cli/\(index)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "from the binary")
        }

        let (status, reason, stderr) = try server.terminate()
        XCTAssertEqual(reason, .exit, stderr)
        XCTAssertEqual(status, 0, stderr)
        let requestLines = stderr.split(separator: "\n").filter { $0.contains(" GET /cli/") }
        XCTAssertEqual(requestLines.count, 50, stderr)
        for index in 0..<50 {
            let lines = requestLines.filter { $0.contains(" GET /cli/\(index) ") }
            XCTAssertEqual(lines.count, 1, "one line for /cli/\(index)")
            XCTAssertTrue(lines.first?.contains("[info]") == true, "\(lines)")
            XCTAssertTrue(lines.first?.contains("200 mock") == true, "\(lines)")
        }
        XCTAssertTrue(stderr.contains("listening on http://127.0.0.1:\(server.port)"), stderr)

        // Nothing lost: a second run on the same file sees all 50 requests and the mock.
        let again = try launch(["serve", "--port=\(try freePort())", "--db=\(database)", "--log-level", "warning"])
        let reader = try again.client()
        let rows = try E2E.sqlRows(reader, "SELECT COUNT(*), COUNT(DISTINCT url) FROM requests WHERE url LIKE '/cli/%'")
        XCTAssertEqual(rows.first?.map { JSONNumber.int($0) }, [50, 50])
        let mock = try E2E.mocks(reader, tenant: nil).first
        XCTAssertEqual(JSONNumber.int(mock?["hits"]), 50)
        XCTAssertEqual(try reader.request("GET", "/cli/again").text, "from the binary")
        let (againStatus, _, againStderr) = try again.terminate()
        XCTAssertEqual(againStatus, 0, againStderr)
    }

    func testWarningLevelPrintsNoPerRequestLines() throws {
        let database = directory.appendingPathComponent("db-quiet.sqlite").path  // its path must not hold "/quiet"
        // The mocks directory beside the database, not around it (tester42b-F14's refusal).
        let mocks = directory.appendingPathComponent("mocks")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        let server = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning"],
            environment: ["CATBIRD_MOCKS_DIR": mocks.path])
        let client = try server.client()
        try E2E.addMock(client, url: "/quiet", body: "shh")
        for _ in 0..<10 { XCTAssertEqual(try client.request("GET", "/quiet").text, "shh") }
        XCTAssertEqual(try client.request("GET", "/not-mocked").status, 404)

        let (status, _, stderr) = try server.terminate(signal: SIGINT)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertFalse(stderr.contains("/quiet"), stderr)
        XCTAssertFalse(stderr.contains("/not-mocked"), stderr)
        // The lines written at every level: `listening on` (T14B-F1) and the modes line after it (T19B-F4).
        XCTAssertEqual(
            stderr.split(separator: "\n").filter { $0.contains("[info]") }.map { $0.contains("listening on") || $0.contains("[info] modes: ") },
            [true, true], stderr)

        // SIGINT, like SIGTERM, writes the journal before exiting.
        let reader = try launch(["--port", "\(try freePort())", "--db", database, "--log-level", "error"])
        let rows = try E2E.sqlRows(try reader.client(), "SELECT COUNT(*) FROM requests")
        XCTAssertEqual(rows.first.map { $0.map { JSONNumber.int($0) } }, [11])
        XCTAssertEqual(try reader.terminate().status, 0)
    }

    /// Regression: a second server on the same database file used to start and serve its own
    /// in-memory mocks while deleting the first one's rows.
    func testASecondServerOnTheSameDatabaseRefusesToStart() throws {
        let database = directory.appendingPathComponent("shared.sqlite").path
        let first = try launch(["--port", "\(try freePort())", "--db", database, "--log-level", "warning"])
        let second = try run(["--port", "\(try freePort())", "--db", database])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("is in use by another Catbird server"), second.stderr)
        XCTAssertEqual(try first.terminate().status, 0)
        // Once the first has stopped, the file is free again.
        let third = try launch(["--port", "\(try freePort())", "--db", database, "--log-level", "warning"])
        XCTAssertEqual(try third.terminate().status, 0)
    }

    /// Regression: at warning level libmicrohttpd still printed a line per client that hung up
    /// mid-request ("Connection was closed by remote side …").
    func testClientsHangingUpLeaveNoLinesAtWarningLevel() throws {
        let database = directory.appendingPathComponent("hangups.sqlite").path
        let server = try launch(["--port", "\(try freePort())", "--db", database, "--log-level", "warning"])
        for _ in 0..<20 {
            let client = try server.client()
            try client.send(raw: Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part".utf8))
        }  // each client is closed here, mid-body
        // Connections are accepted in order, so once health is answered all 20 were accepted;
        // once the server holds no connection on its port it has handled every hang-up (and
        // written whatever it writes for one) before the SIGTERM below.
        do {  // scoped: the health connection must be closed before counting again
            let health = try server.client()
            XCTAssertEqual(try health.request("GET", "/catbird/api/health").status, 200)
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(10))
        var open = try establishedConnections(port: server.port, pid: server.process.processIdentifier)
        while open > 0 && clock.now < deadline {
            usleep(10_000)
            open = try establishedConnections(port: server.port, pid: server.process.processIdentifier)
        }
        XCTAssertEqual(open, 0, "the server closed every hung-up connection")
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0)
        let lines = stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, stderr)
        XCTAssertTrue(lines.first?.contains("[info] Catbird") == true && lines.first?.contains("listening on") == true
                          && lines.last?.contains("[info] modes: ") == true,
                      "nothing but the `listening on` and modes lines (written at every level) is logged at warning level for ordinary hang-ups: \(stderr)")
    }

    func testMaxBodySizeFromTheEnvironmentIsHonoured() throws {
        let database = directory.appendingPathComponent("limit.sqlite").path
        let server = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning"],
            environment: ["CATBIRD_MAX_BODY_SIZE": "1kb"])
        try E2E.addMock(try server.client(), method: "POST", url: "/up", body: "taken")

        let atLimit = try server.client().request("POST", "/up", body: [UInt8](repeating: 0x61, count: 1024))
        XCTAssertEqual(atLimit.status, 200, atLimit.text)
        XCTAssertEqual(atLimit.text, "taken")
        let over = try server.client().request("POST", "/up", body: [UInt8](repeating: 0x61, count: 2000))
        E2E.assertError(over, status: 413, reasonContains: "1024")
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)

        // A flag wins over the variable.
        let flagged = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning", "--max-body-size", "4kb"],
            environment: ["CATBIRD_MAX_BODY_SIZE": "1kb"])
        let accepted = try flagged.client().request("POST", "/up", body: [UInt8](repeating: 0x61, count: 2000))
        XCTAssertEqual(accepted.status, 200, accepted.text)
        XCTAssertEqual(try flagged.terminate().status, 0)
    }

    /// `CATBIRD_MAX_BUFFERED_BODIES` and `CATBIRD_HEAD_TIMEOUT` are read (try8b F1, F12;
    /// docs/operations.md#connections-and-memory): with a 2 KiB budget two tenants' stalled
    /// 1 KiB uploads take it all and a third tenant's gets the 503 naming 2048 bytes; a head trickled past a
    /// 1 s deadline gets the 408.
    func testBufferedBodiesAndHeadTimeoutFromTheEnvironmentAreHonoured() throws {
        let database = directory.appendingPathComponent("budget.sqlite").path
        let server = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning", "--max-body-size", "1kb"],
            environment: ["CATBIRD_MAX_BUFFERED_BODIES": "2kb", "CATBIRD_HEAD_TIMEOUT": "1"])
        // Each from a tenant of its own: one tenant's second 1 KiB would pass its share of the
        // budget (one body of --max-body-size) while another's does not fit (tester39b-F8).
        func head(_ tenant: String) -> [UInt8] {
            Array("POST /up HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: \(tenant)\r\nContent-Length: 1024\r\n\r\n".utf8)
        }
        let stalled = try (0..<2).map { _ in try server.client() }
        for (index, client) in stalled.enumerated() {
            try client.send(raw: head("t\(index)") + [UInt8](repeating: 0x61, count: 1023))
            XCTAssertEqual(client.readUntilQuiet(firstByteWithin: 300, quietAfter: 100), [], "taken, waiting for its last byte")
        }
        let third = try server.client()
        try third.send(raw: head("t2"))
        let refused = try third.readResponse()
        E2E.assertError(refused, status: 503, reasonContains: "limit of 2048 bytes of request bodies")

        let slow = try server.client()
        try slow.send(raw: Array("GET /x HTTP/1.1\r\nHost: x\r\nX-A: ".utf8))
        let (bytes, closed) = slow.readUntilClosed(within: 6)
        XCTAssertTrue(closed)
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 408 "), String(decoding: bytes, as: UTF8.self))
        XCTAssertEqual(try server.terminate().status, 0)
    }

    /// `CATBIRD_MAX_TENANT_MOCKS` bounds each tenant's mocks (docs/protocol.md#mock-limits); the
    /// flag wins over it, and `off` lifts the limit.
    func testMaxTenantMocksFromTheEnvironmentIsHonouredAndTheFlagWins() throws {
        let database = directory.appendingPathComponent("mock-limit.sqlite").path
        let server = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning"],
            environment: ["CATBIRD_MAX_TENANT_MOCKS": "1"])
        try E2E.addMock(try server.client(), tenant: "S", url: "/one", body: "1")
        let refused = try server.client().json(
            "POST", "/catbird/api/mocks", E2E.updateAction(url: "/two", body: nil), headers: E2E.tenantHeader("S"))
        E2E.assertError(refused, status: 409, reasonContains: #"tenant "S" holds 1 mocks, the limit is 1 (--max-tenant-mocks"#)
        XCTAssertEqual(try server.terminate().status, 0)

        let flagged = try launch(
            ["--port", "\(try freePort())", "--db", database, "--log-level", "warning", "--max-tenant-mocks", "off"],
            environment: ["CATBIRD_MAX_TENANT_MOCKS": "1"])
        try E2E.addMock(try flagged.client(), tenant: "S", url: "/two", body: "2")
        XCTAssertEqual(try flagged.terminate().status, 0)
    }

    /// Tester finding T14B-F2, the exact inputs: under an overriding flag, a switch variable
    /// that is neither on nor off (`CATBIRD_CORS=banana --cors`) and an empty one exited 2, but a
    /// malformed valued one was silently ignored (`CATBIRD_PORT=abc --port …` started). One rule
    /// now: every set variable is checked, and a bad one exits 2 with the usual message, naming
    /// the variable. Relations between options are checked on the values in effect only: a
    /// variable a flag overrides is not held to the flags' other values.
    func testEverySetVariableIsCheckedEvenWhenAFlagOverridesIt() throws {
        let cases: [(variable: String, value: String, flag: [String], message: String)] = [
            ("CATBIRD_PORT", "abc", ["--port", "\(try freePort())"], "port must be 0...65535, not 'abc'"),
            ("CATBIRD_THREADS", "abc", ["--threads", "2"], "threads must be 1...256, not 'abc'"),
            ("CATBIRD_TENANT_TTL", "xyz", ["--tenant-ttl", "1d"], "tenant-ttl must be a whole number with s, m, h or d"),
            ("CATBIRD_DURABILITY", "foo", ["--durability", "strict"], "durability must be relaxed or strict, not 'foo'"),
            ("CATBIRD_LOG_LEVEL", "loud", ["--log-level", "info"], "log level must be debug, info, warning or error, not 'loud'"),
        ]
        for (variable, value, flag, message) in cases {
            let result = try run(flag + ["--db", "x.sqlite"], environment: [variable: value])
            XCTAssertEqual(result.status, 2, "\(variable)=\(value) \(flag): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.hasPrefix("catbird: \(variable) (overridden by \(flag[0]), but checked): \(message)"), result.stderr)
        }
        // What Kubernetes sets CATBIRD_PORT to beside a Service named catbird: said so.
        let link = try run(["--port", "\(try freePort())", "--db", "x.sqlite"], environment: ["CATBIRD_PORT": "tcp://10.0.0.7:8080"])
        XCTAssertEqual(link.status, 2, link.stderr)
        XCTAssertTrue(link.stderr.contains("a Kubernetes service link of a Service named catbird? set enableServiceLinks: false"), link.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no database file was created")
        // An overridden variable is checked alone, not against other options: relations hold
        // between the values in effect only. CATBIRD_MAX_BUFFERED_BODIES=10mb is less than the
        // default --max-body-size (50mb), but what is in effect is 20mb beside 5mb; and
        // CATBIRD_RECORD_MODE=1 alone has neither a mocks directory nor an upstream, which the
        // flags in effect give.
        let mocks = directory.appendingPathComponent("recorded")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        let server = try launch(
            ["--port", "\(try freePort())", "--db", ":memory:", "--max-body-size", "5mb", "--max-buffered-bodies", "20mb",
             "--record", "--proxy", "--mocks-dir", mocks.path],
            environment: ["CATBIRD_MAX_BUFFERED_BODIES": "10mb", "CATBIRD_RECORD_MODE": "1"])
        XCTAssertEqual(try server.client().request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try server.terminate().status, 0)
    }

    /// Tester finding T19B-F20, the exact inputs: a bad variable no flag overrides was reported
    /// as the option (`port must be …`, `--mocks-dir: …`) without the variable's name, and the
    /// Kubernetes service-link hint came only beside `--port`. Each now names its variable; a
    /// value ending in a line break (a Secret made with `echo`) says so.
    func testABadVariableIsNamedEvenWithoutAFlag() throws {
        let cases: [(variable: String, value: String, message: String)] = [
            ("CATBIRD_PORT", "tcp://10.0.0.1:8080",
             "CATBIRD_PORT: port must be 0...65535, not 'tcp://10.0.0.1:8080' (a Kubernetes service link of a Service named catbird?"),
            ("CATBIRD_THREADS", "0", "CATBIRD_THREADS: threads must be 1...256"),
            ("CATBIRD_ADMIN_TOKEN", "tok123\n", "CATBIRD_ADMIN_TOKEN: admin token must be printable ASCII without spaces, and not empty (the value ends in a line break"),
            ("CATBIRD_MOCKS_DIR", "/nonexistent-catbird-dir", "CATBIRD_MOCKS_DIR: the directory '/nonexistent-catbird-dir' does not exist"),
            // tester21b-F4: a relation's fault read as if --max-buffered-bodies had been given.
            ("CATBIRD_MAX_BUFFERED_BODIES", "1", "CATBIRD_MAX_BUFFERED_BODIES: max buffered bodies must be at least --max-body-size (52428800 bytes)"),
        ]
        for (variable, value, message) in cases {
            let result = try run(["--db", "x.sqlite"], environment: [variable: value])
            XCTAssertEqual(result.status, 2, "\(variable)=\(value): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("catbird: \(message)"), "\(variable): \(result.stderr)")
        }
        // Given as a flag, the option is named as the flag.
        let flagged = try run(["--db", "x.sqlite", "--mocks-dir", "/nonexistent-catbird-dir"])
        XCTAssertTrue(flagged.stderr.hasPrefix("catbird: --mocks-dir: the directory"), flagged.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "no database file was created")
    }

    /// Tester finding T14B-F8, the exact call: with `--log-level debug`, a shard's refused
    /// `{"type":"bogus"}` logged only `POST /catbird/api/mocks → 400 control tenant=a 2.1ms`, as at
    /// info: the reason was logged at no level. It is now logged at debug (and not at info).
    func testARefusedControlCallsReasonIsLoggedAtDebug() throws {
        for level in ["debug", "info"] {
            let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--log-level", level])
            let refused = try server.client().json(
                "POST", "/catbird/api/mocks", #"{"type":"bogus"}"#, headers: [("X-Catbird-Parallel-Id", "a")])
            XCTAssertEqual(refused.status, 400, refused.text)
            let reason = try XCTUnwrap(refused.object["reason"] as? String, refused.text)
            let (status, _, stderr) = try server.terminate()
            XCTAssertEqual(status, 0, stderr)
            let line = "[debug] POST /catbird/api/mocks → 400 control tenant=a: \(reason)\n"
            XCTAssertEqual(stderr.contains(line), level == "debug", "\(level): \(stderr)")
        }
    }

    // MARK: - Running the binary

    /// The built `catbird` beside the test bundle (same build directory).
    private func executable() throws -> URL {
        try BuiltProducts.executable(named: "catbird")
    }

    private func childEnvironment(_ extra: [String: String]) -> [String: String] {
        LaunchedServer.childEnvironment(extra)
    }

    /// Runs `catbird arguments` to completion (it must exit within 30 s).
    /// Client bytes with control characters (an escape sequence in a parallel id, a C1 in the
    /// target, a tab in the method's place) reach the log escaped, never raw: the exact input
    /// that recoloured the terminal (`tenant=a^[[31mRED^[[0m^A`).
    func testControlCharactersInClientBytesAreEscapedInTheLog() throws {
        let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--log-level", "info"])
        let raw = "GET /esc HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: a\u{1b}[31mRED\u{1b}[0m\u{01}\r\nConnection: close\r\n\r\n"
        let client = try RawHTTPClient(port: server.port)
        try client.send(raw: Array(raw.utf8))
        XCTAssertEqual(try client.readResponse().status, 404)
        let c1 = try RawHTTPClient(port: server.port)
        XCTAssertEqual(try c1.request("GET", "/c1%C2%85/\u{85}x").status, 404)
        // T16-F5: a right-to-left override in a tenant id was written raw (`tenant=e‮sc`) and
        // reordered the rest of the line on the terminal.
        let bidi = "GET /bidi HTTP/1.1\r\nHost: a\r\nX-Catbird-Parallel-Id: e\u{202E}sc\u{2066}\r\nConnection: close\r\n\r\n"
        let bidiClient = try RawHTTPClient(port: server.port)
        try bidiClient.send(raw: Array(bidi.utf8))
        XCTAssertEqual(try bidiClient.readResponse().status, 404)
        // tester39a-F4, the exact request: U+2028 in the target and U+2029 in the parallel id were
        // written raw, a line break to editors and to Python's splitlines().
        let separators = "GET /log\u{2028}next HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: lg\u{2029}x\r\nConnection: close\r\n\r\n"
        let separatorClient = try RawHTTPClient(port: server.port)
        try separatorClient.send(raw: Array(separators.utf8))
        XCTAssertEqual(try separatorClient.readResponse().status, 404)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains(#"GET /esc → 404 none tenant="a\u001b[31mRED\u001b[0m\u0001" "#), stderr)
        XCTAssertTrue(stderr.contains(#"GET /c1%C2%85/\u0085x → 404"#), stderr)
        XCTAssertTrue(stderr.contains(#"GET /bidi → 404 none tenant="e\u202esc\u2066" "#), stderr)
        XCTAssertTrue(stderr.contains(#"GET /log\u2028next → 404 none tenant="lg\u2029x" "#), stderr)
        let bidiControls: [ClosedRange<UInt32>] = [0x061C...0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069]
        let controls = stderr.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || bidiControls.contains { $0.contains(scalar.value) }
        }
        XCTAssertEqual(controls.count, 0, "no raw control character in the log: \(controls.map(\.value))")
    }

    /// tester50a-F4 / tester50c-F7, the exact ids: a shard named `(default)` logged
    /// `tenant=(default)` as the default tenant does, `web-1` with a zero-width space (or a BOM)
    /// logged as plain `web-1`, and `a b` split the field in two. An id that is not a plain token
    /// is quoted as a JSON string now, its invisible code points written `\uXXXX`.
    func testLogLinesTellLookAlikeTenantsApart() throws {
        let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--log-level", "info"])
        let client = try RawHTTPClient(port: server.port)
        for id in ["(default)", "\u{200B}web-1", "\u{FEFF}web-1", "web-1", "a b", "say \"hi\"", "shard-\u{212A}", "café"] {
            XCTAssertEqual(try client.request("GET", "/logcheck", headers: [("X-Catbird-Parallel-Id", id)]).status, 404)
        }
        XCTAssertEqual(try client.request("GET", "/logcheck").status, 404)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        let fields = stderr.split(separator: "\n").filter { $0.contains("GET /logcheck → 404") }.compactMap { line in
            line.firstMatch(of: #/ tenant=(.*?) [0-9.]+ms/#).map { String($0.1) }
        }
        XCTAssertEqual(
            fields,
            [#""(default)""#, #""\u200bweb-1""#, #""\ufeffweb-1""#, "web-1", #""a b""#, #""say \"hi\"""#, #""shard-\u212a""#, #""café""#, "(default)"],
            stderr)
    }

    /// tester53a-F1 and F4: the warning for a mock that can never match named its tenant raw
    /// (`tenant "wm"` for an id with a zero-width space), and the line of an answer cut short by
    /// its client named no tenant. The first names it as reasons do now, the second as every
    /// request line does.
    func testWarningsAndCutAnswersNameTheirTenantApart() throws {
        let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--log-level", "info"])
        let client = try server.client()
        // No leading `/`: a url no usual request can match.
        try E2E.addMock(client, tenant: "\u{200B}wm", url: "api/users", body: "x")
        try E2E.addMock(client, tenant: "slow-1", url: "/big", body: String(repeating: "b", count: 20_000_000))
        let reader = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try reader.send("GET", "/big", headers: [("X-Catbird-Parallel-Id", "slow-1")])
        XCTAssertFalse(reader.read(upTo: 100_000, within: 5).isEmpty)
        reader.hangUp()
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(
            stderr.contains("[warning] tenant \"\u{200B}wm\" (holds U+200B, which may not show): a mock was added that no usual request can match"),
            stderr)
        // The client's hang-up, or the stop, whichever libmicrohttpd reports first.
        XCTAssertTrue(stderr.contains("GET /big tenant=slow-1: the "), stderr)
    }

    /// try10a F5: `--head-timeout 30s` was refused (exit 2) beside `--tenant-ttl 90s`, the
    /// documented form of durations; the seconds' `s` is taken by both bare-seconds options.
    func testSecondsOptionsTakeTheSecondsSuffix() throws {
        let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--head-timeout", "30s", "--upstream-timeout", "2.5s"])
        // tester45a-F9: leading zeros were counted as digits of a value over 3600.
        let zeros = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--upstream-timeout", "000000000030"])
        XCTAssertEqual(try RawHTTPClient(port: zeros.port).request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try zeros.terminate().status, 0)
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", "/catbird/api/health").status, 200)
        XCTAssertEqual(try server.terminate().status, 0)
    }

    /// Tester finding tester44a-F4, its value: `--upstream-timeout 0.0001` was truncated to 0 ms
    /// on the command line (before the outbound client's rounding up, tester42b-F1), which
    /// libcurl reads as no timeout: a request to an upstream that never answered hung until its
    /// client gave up. It is 1 ms now: the 504 at once.
    func testAnUpstreamTimeoutUnderAMillisecondOnTheCommandLineStillTimesOut() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let server = try launch([
            "--port", "\(try freePort())", "--db", ":memory:", "--redirect-url", upstream.baseURL, "--upstream-timeout", "0.0001",
        ])
        let started = ContinuousClock.now
        let slow = try RawHTTPClient(port: server.port, timeoutSeconds: 10).request("GET", "/slow/5")
        XCTAssertEqual(slow.status, 504, slow.text)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), "timed out, not waited for the upstream's 5 s")
        XCTAssertEqual(try server.terminate().status, 0)
    }

    /// Tester finding try9a F10, the exact case: a 404's log line said only
    /// `GET /api/usres → 404 none tenant=(default) 7.4ms`; in CI the log is often all that is
    /// kept, so it now ends with the 404's one-line reason (the closest mock and how it differs).
    func testA404sLogLineCarriesItsReason() throws {
        let server = try launch(["--port", "\(try freePort())", "--db", ":memory:", "--log-level", "info"])
        let client = try RawHTTPClient(port: server.port)
        try E2E.addMock(client, url: "/api/users", body: "users")
        XCTAssertEqual(try client.request("GET", "/api/usres").status, 404)
        XCTAssertEqual(try client.request("GET", "/api/users").status, 200)
        // try10a F16: the hint at the reason's end was cut off at 300 bytes.
        try E2E.addMock(client, tenant: "nm", url: "/api/s?b=2&a=1", body: "s")
        XCTAssertEqual(try client.request("GET", "/api/s?a=1&b=2", headers: E2E.tenantHeader("nm")).status, 404)
        // The reason is read back from the 404's JSON: its escapes (a quote, a backslash) decoded.
        XCTAssertEqual(try client.request("GET", #"/api/us"r\es"#).status, 404)
        let (status, _, stderr) = try server.terminate()
        XCTAssertEqual(status, 0, stderr)
        let line = try XCTUnwrap(stderr.split(separator: "\n").first { $0.contains("GET /api/usres → 404 none") }, stderr)
        XCTAssertTrue(
            line.contains(
                #"ms: in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); the closest "#
                    + #"is mock 1 (GET equal "/api/users") of the default tenant: url differs"#),
            String(line))
        let reordered = try XCTUnwrap(stderr.split(separator: "\n").first { $0.contains("GET /api/s?a=1&b=2 → 404 none") }, stderr)
        XCTAssertTrue(reordered.contains(#"ms: in tenant "nm"; the closest is mock "#), String(reordered))
        XCTAssertTrue(reordered.contains("has the request's query parameters in another order"), String(reordered))
        XCTAssertFalse(reordered.hasSuffix("…"), "whole: \(reordered)")
        let escaped = try XCTUnwrap(stderr.split(separator: "\n").first { $0.contains(#"/api/us"r\es → 404 none"#) }, stderr)
        XCTAssertTrue(escaped.contains(#"url differs (expected equal "/api/users", got "/api/us\"r\\es")"#), String(escaped))
        let hit = try XCTUnwrap(stderr.split(separator: "\n").first { $0.contains("GET /api/users → 200 mock") }, stderr)
        XCTAssertTrue(hit.hasSuffix("ms"), "a hit's line is unchanged: \(hit)")
    }

    /// Regression (tester finding tester50c-F10), the exact cases: a redirect URL refused at
    /// start-up for its spelling was quoted with its password, which the running server shows
    /// as `***` everywhere; a refusal goes to a CI job's log, often public.
    func testARefusedRedirectURLHidesItsPassword() throws {
        let cases: [([String], [String: String])] = [
            (["--redirect-url", "http://ciuser:S3cret@api.test:0"], [:]),
            (["--redirect-url", "http://127.0.0.1:1"], ["CATBIRD_REDIRECT_URL": "http://ciuser:S3cret@api.test/v1 "]),
            (["--redirect-url", "http://u:S3cret@h/?q"], [:]),
            (["--redirect-url", "ftp://u:S3cret@h"], [:]),
        ]
        for (arguments, environment) in cases {
            let result = try run(["--port", "\(try freePort())", "--db", ":memory:"] + arguments, environment: environment)
            XCTAssertEqual(result.status, 2, result.output)
            XCTAssertFalse(result.stderr.contains("S3cret"), result.stderr)
            XCTAssertTrue(result.stderr.contains(":***@"), result.stderr)
        }
    }

    /// Regression (tester finding tester50c-F12), the exact case: started with its standard
    /// descriptors closed (`catbird … 2>&-`), the server opened its database as descriptor 2 and
    /// wrote every log line into it from byte 0: after a clean stop `PRAGMA integrity_check`
    /// failed and the next start refused the file (exit 3), every mock and the journal lost.
    func testAClosedStandardErrorLeavesTheDatabaseWhole() throws {
        let database = directory.appendingPathComponent("closed-stderr.sqlite").path
        let arguments = ["--port", "\(try freePort())", "--db", database, "--log-level", "info"]
        let server = try LaunchedServer(arguments, in: directory, closedStandardError: true)
        let standardError = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.process.processIdentifier)/fd/2")
        XCTAssertEqual(standardError, "/dev/null")
        let client = try RawHTTPClient(port: server.port)
        try E2E.addMock(client, url: "/kept", body: "kept")
        // Enough log lines to outgrow the pages the stop's checkpoint rewrites (the tester's 3,000).
        for index in 1...3000 { XCTAssertEqual(try client.request("GET", "/some/long/path/\(index)?q=abcdefghijklmnop").status, 404) }
        XCTAssertEqual(try server.terminate().status, 0)

        let file = try Database(path: database)
        XCTAssertEqual(try file.query("PRAGMA integrity_check").first?[0].stringValue, "ok")
        XCTAssertEqual(try file.query("SELECT count(*) FROM mocks WHERE url_value = '/kept'").first?[0].intValue, 1)
        file.close()
        let again = try launch(["--port", "\(try freePort())", "--db", database])
        XCTAssertEqual(try RawHTTPClient(port: again.port).request("GET", "/kept").text, "kept")
        XCTAssertEqual(try again.terminate().status, 0)
    }

    /// Regression (tester finding tester28b-F3), the exact case: `TMPDIR=<a folder that does not
    /// exist> catbird --db :memory:` exited 3 with `database :memory:: cannot open the file for
    /// reading and writing: No such file or directory (the folder does not exist)`, naming
    /// neither the file nor `$TMPDIR`. It names both now.
    func testAMemoryDatabaseThatCannotBeMadeNamesTMPDIR() throws {
        let missing = directory.appendingPathComponent("nonexist").path
        let result = try run(["--port", "\(try freePort())", "--db", ":memory:"], environment: ["TMPDIR": missing])
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.stderr.contains("database :memory: (its file \(missing)/catbird-memory-"), result.stderr)
        XCTAssertTrue(result.stderr.contains("in the temporary folder: TMPDIR=\(missing))"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the folder does not exist"), result.stderr)
    }

    private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(try executable(), arguments, in: directory, environment: childEnvironment(environment), seconds: 30)
    }

    /// A port that was free a moment ago.
    private func freePort() throws -> UInt16 {
        try FreePort.next()
    }

    /// The number of sockets (listening and connected) process `pid` has open, from /proc.
    /// The server side's ESTABLISHED TCP connections on `port` (from `/proc/<pid>/net/tcp`:
    /// local address ending in the port, state 01).
    private func establishedConnections(port: UInt16, pid: Int32) throws -> Int {
        let table = try String(contentsOfFile: "/proc/\(pid)/net/tcp", encoding: .utf8)
        let localPort = ":" + String(port, radix: 16, uppercase: true).leftPadded(to: 4)
        return table.split(separator: "\n").dropFirst().filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1].hasSuffix(localPort) && fields[3] == "01"
        }.count
    }

    /// `catbird arguments` started in this test's directory; see ``LaunchedServer``.
    private func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> LaunchedServer {
        try LaunchedServer(arguments, in: directory, environment: environment)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
