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

    /// try6a F16: SIGHUP (a closed terminal) killed the server at once (exit 129) and 90 answered
    /// requests of a keep-alive client looping `GET /h/<n>` were missing from the journal.
    func testSIGHUPStopsGracefullyWithEveryAnsweredRequestJournaled() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("hup.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "info"], in: directory)
        let control = try server.client()
        try E2E.addMock(control, url: "/h/*", kind: "wildcard", body: "h")
        let answered = Locked<Set<String>>([])
        let hangUp = Thread { [process = server.process] in
            usleep(500_000)
            kill(process.processIdentifier, SIGHUP)
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
        XCTAssertEqual(server.process.terminationReason, .exit, "SIGHUP must not kill the process")
        XCTAssertEqual(server.process.terminationStatus, 0)
        XCTAssertTrue(server.stderrText.contains("stopping (signal \(SIGHUP))"), server.stderrText)
        let missing = answered.value.subtracting(try Self.journaledURLs(database))
        XCTAssertGreaterThan(answered.value.count, 10, "the clients got answers before SIGHUP")
        XCTAssertTrue(missing.isEmpty, "\(missing.count) of \(answered.value.count) answered requests missing, e.g. \(missing.sorted().prefix(3))")
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
