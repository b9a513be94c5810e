import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The `catbird` binary and the signals around it (README.md#configuration): a closed stderr pipe
/// must not kill it (SIGPIPE, try6a F15) and SIGHUP takes the graceful SIGTERM path (try6a F16).
final class TerminationSignalTests: XCTestCase {
    /// try6a F15: `catbird serve … 2>&1 | head -2`. Once the reader of stderr is gone, the next
    /// request's info log line raised SIGPIPE: no answer, exit 141, the request not journaled.
    func testServerKeepsServingAndJournalingAfterItsStderrPipeCloses() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("pipe.sqlite").path
        let pipe = Pipe()
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "info"], in: directory, stderrPipe: pipe)
        try? pipe.fileHandleForWriting.close()
        // What `head -2` reads before it exits: the start-up lines.
        XCTAssertTrue(String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self).contains("listening"))
        try pipe.fileHandleForReading.close()

        let client = try server.client()
        try E2E.addMock(client, url: "/x*", kind: "wildcard", body: "x")
        for index in 0..<5 {
            let response = try client.request("GET", "/x?n=\(index)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "x")
        }
        XCTAssertTrue(server.process.isRunning)
        let stopped = try server.terminate()
        XCTAssertEqual(stopped.reason, .exit)
        XCTAssertEqual(stopped.status, 0)
        XCTAssertEqual(try Self.journaledURLs(database).filter { $0.hasPrefix("/x?n=") }.count, 5)
    }

    /// Leftover of session 14's closing note: with `--mocks-dir /` the start-up sweep for
    /// recordings' temporary files (one `lstat` per entry of the tree, about 13 s here in a debug
    /// build) held a SIGTERM until it had walked the whole tree and the server listened. `/usr`
    /// (about 8 s) stands in for `/`, whose sweep would also remove stale temporary files of
    /// other tests under `/tmp`. The signal is sent once the fresh database's migrations are
    /// logged, which comes just before the sweep; the server now exits 0 within moments,
    /// without listening, saying it stopped during start-up.
    func testASIGTERMDuringTheStartUpSweepOfAHugeMocksDirectoryStopsItPromptly() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("sweep.sqlite").path
        let (process, logged) = try Self.launch(
            ["--port", "\(try FreePort.next())", "--db", database, "--mocks-dir", "/usr"], in: directory, until: "applied migrations")
        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        try LaunchedServer.wait(for: process, seconds: 30)
        let took = ContinuousClock.now - signalled
        XCTAssertLessThan(took, .seconds(2), "exited \(took) after the SIGTERM: \(logged())")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0, logged())
        XCTAssertTrue(
            E2E.matches(logged(), #"stopping \(signal 15\) during start-up: the sweep of '/usr' for recordings' temporary files was cut short after [0-9]+ entries; nothing was served"#),
            logged())
        XCTAssertFalse(logged().contains("listening on"), logged())
        for suffix in ["-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: database + suffix), suffix) }
    }

    /// tester21b-F2's SIGTERM variant: a SIGTERM while a large file's mocks loaded ended with
    /// exit 0 and `stopping (signal 15) before listening: nothing was served`, but left the
    /// `-wal` (0 bytes) and `-shm` beside the file (the process exited without closing the
    /// database), and a start after moving the file away was refused for them. Now the database
    /// is closed as at a stop, and nothing is left beside it.
    func testASIGTERMWhileMocksLoadLeavesNoWALOrSHMBesideTheFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("big.sqlite").path
        let arguments = ["--port", "\(try FreePort.next())", "--db", database]
        let server = try LaunchedServer(arguments + ["--log-level", "warning"], in: directory)
        try E2E.addMock(try server.client(), url: "/big/0", body: "big")
        XCTAssertEqual(try server.terminate().status, 0)
        let db = try Database(path: database)
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)
            INSERT INTO mocks (tenant, position, method, url_kind, url_value, status, created_at)
            SELECT '', 100 + i, 'GET', 'equal', '/big/' || i, 200, '2026-12-04T05:20:25.454Z' FROM n
            """)
        db.close()
        for suffix in ["-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: database + suffix), suffix) }

        let (process, logged) = try Self.launch(arguments, in: directory, until: "loading 30001 mocks")
        kill(process.processIdentifier, SIGTERM)
        try LaunchedServer.wait(for: process, seconds: 60)
        XCTAssertEqual(process.terminationStatus, 0, logged())
        XCTAssertTrue(logged().contains("stopping (signal 15) before listening: nothing was served"), logged())
        for suffix in ["-wal", "-shm"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: database + suffix), "\(suffix) left: \(logged())")
        }
    }

    /// tester42b-F6: `nohup catbird … &` ignores SIGHUP for the server, which put it back on its
    /// graceful stop, so a dropped SSH session stopped the fleet's shared server. A SIGHUP
    /// ignored at start stays ignored (and the log says so); SIGTERM still stops it.
    func testSIGHUPIgnoredAtStartByNohupStaysIgnored() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try FreePort.next()
        let (process, logged) = try Self.launch(
            ["--port", "\(port)", "--db", directory.appendingPathComponent("nohup.sqlite").path], in: directory, until: "listening on",
            underNohup: true)
        XCTAssertTrue(logged().contains("SIGHUP is ignored, as it was when the server started (nohup)"), logged())
        kill(process.processIdentifier, SIGHUP)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(process.isRunning, logged())
        XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200)
        kill(process.processIdentifier, SIGTERM)
        try LaunchedServer.wait(for: process, seconds: 30)
        XCTAssertEqual(process.terminationStatus, 0, logged())
        XCTAssertTrue(logged().contains("stopping (signal 15)"), logged())
    }

    /// try6a F16: SIGHUP (a closed terminal) killed the server at once (exit 129) and 90 answered
    /// requests of a keep-alive client looping `GET /h/<n>` were missing from the journal.
    func testSIGHUPStopsGracefullyWithEveryAnsweredRequestJournaled() throws {
        try checkGracefulStop(SIGHUP)
    }

    /// Regression (tester finding tester28b-F2): a CPU-time limit's SIGXCPU (`prlimit --cpu`;
    /// here `kill -XCPU` under load, the finding's second case) killed the server at once, exit
    /// 152, 609 of 15,747 answered requests not journaled, nothing logged; SIGQUIT (Ctrl-\) and
    /// SIGPWR likewise. Each now stops it as SIGTERM does.
    func testSIGXCPUSIGQUITAndSIGPWRStopGracefullyWithEveryAnsweredRequestJournaled() throws {
        for signalNumber in [SIGXCPU, SIGQUIT, SIGPWR] { try checkGracefulStop(signalNumber) }
    }

    /// Sends `signalNumber` to a server half a second into two keep-alive clients' loops of
    /// `GET /h/<n>`, and expects the graceful stop: exit 0, `stopping (signal N)` logged, and
    /// every answered request in the journal.
    private func checkGracefulStop(_ signalNumber: Int32, file: StaticString = #filePath, line: UInt = #line) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("hup.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "info"], in: directory)
        let control = try server.client()
        try E2E.addMock(control, url: "/h/*", kind: "wildcard", body: "h")
        let answered = Locked<Set<String>>([])
        let hangUp = Thread { [process = server.process] in
            usleep(500_000)
            kill(process.processIdentifier, signalNumber)
        }
        hangUp.start()
        E2E.runOnThreads(2) { [port = server.port] client in
            guard let connection = try? RawHTTPClient(port: port, timeoutSeconds: 10) else { return }
            for sequence in 0..<1_000_000 {
                let url = "/h/\(client)-\(sequence)"
                guard let response = try? connection.request("GET", url), response.status == 200 else { return }
                answered.change { _ = $0.insert(url) }
            }
        }
        try LaunchedServer.wait(for: server.process, seconds: 30)
        XCTAssertEqual(server.process.terminationReason, .exit, "signal \(signalNumber) must not kill the process", file: file, line: line)
        XCTAssertEqual(server.process.terminationStatus, 0, "signal \(signalNumber)", file: file, line: line)
        XCTAssertTrue(server.stderrText.contains("stopping (signal \(signalNumber))"), server.stderrText, file: file, line: line)
        let missing = answered.value.subtracting(try Self.journaledURLs(database))
        XCTAssertGreaterThan(answered.value.count, 10, "the clients got answers before signal \(signalNumber)", file: file, line: line)
        XCTAssertTrue(
            missing.isEmpty, "signal \(signalNumber): \(missing.count) of \(answered.value.count) answered requests missing, e.g. \(missing.sorted().prefix(3))",
            file: file, line: line)
    }

    /// tester21b-F8: `kill -USR1` (what log tools send to have a daemon reopen its log), USR2 and
    /// ALRM killed the server at once (exit 138, 140, 142), answered requests not yet journaled
    /// lost. Ignored now: the server keeps serving, and a SIGTERM then stops it cleanly with
    /// every answered request journaled. So are (tester finding tester28b-F2) SIGVTALRM, SIGPROF,
    /// SIGIO and SIGSTKFLT, whose default action ended the process as well (exit 154, 155, 157, 144).
    func testSIGUSR1SIGUSR2AndSIGALRMAreIgnored() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("usr.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        let client = try server.client()
        try E2E.addMock(client, url: "/u/*", kind: "wildcard", body: "u")
        let ignored = [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGSTKFLT]
        for signalNumber in ignored {
            kill(server.process.processIdentifier, signalNumber)
            usleep(100_000)
            XCTAssertTrue(server.process.isRunning, "signal \(signalNumber) stopped the server")
            XCTAssertEqual(try client.request("GET", "/u/\(signalNumber)").status, 200)
        }
        let stopped = try server.terminate()
        XCTAssertEqual(stopped.reason, .exit)
        XCTAssertEqual(stopped.status, 0)
        XCTAssertEqual(try Self.journaledURLs(database).filter { $0.hasPrefix("/u/") }.count, ignored.count)
    }

    /// Runs `catbird` with `arguments` in `directory`, its stderr written to a file there, and
    /// waits (30 s at most) until the log contains `line`; asserts it did.
    /// - Returns: the process, and what it has logged so far each time it is called.
    private static func launch(
        _ arguments: [String], in directory: URL, until line: String, underNohup: Bool = false,
        file: StaticString = #filePath, lineNumber: UInt = #line
    ) throws -> (Process, () -> String) {
        let stderr = directory.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        let catbird = try BuiltProducts.executable(named: "catbird")
        process.executableURL = underNohup ? URL(fileURLWithPath: "/usr/bin/nohup") : catbird
        process.arguments = underNohup ? [catbird.path] + arguments : arguments
        process.environment = LaunchedServer.childEnvironment([:])
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let logged = { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
        let deadline = ContinuousClock.now + .seconds(30)
        while !logged().contains(line), process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        XCTAssertTrue(logged().contains(line), logged(), file: file, line: lineNumber)
        return (process, logged)
    }

    private static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func journaledURLs(_ path: String) throws -> Set<String> {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return Set(try db.query("SELECT url FROM requests").compactMap { $0[0].stringValue })
    }
}
