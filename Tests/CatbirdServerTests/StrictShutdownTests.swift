import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` when the server stops with answers still waiting for their journal
/// commit (README.md#durability, docs/answering-later.md#the-guarantees): each client gets the
/// answer its journal row records, never a 503 beside a row that says 200. Shutdown lets a
/// wait for a commit end with its real answer (the writer is stopped only after the HTTP
/// server, and writes everything queued); a delayed mock's delay is cut short at shutdown, and
/// its answer too leaves once its row is committed.
final class StrictShutdownTests: XCTestCase {
    /// Held up by another connection's write lock, a strict answer is waiting for its commit
    /// when the server is told to stop; once the lock goes, it leaves as journaled (it used to
    /// get `503 the server is stopping` at once, while its row was committed as a 200).
    func testAnAnswerWaitingForItsCommitAtShutdownIsTheOneJournaled() throws {
        let server = try TestServer { $0.durability = .strict }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/waiting", body: "journaled")

        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try client.send(raw: Array("GET /waiting HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)  // parked, waiting for the commit the lock holds up

        let stopped = server.stopInBackground()
        usleep(300_000)
        try writer.release()
        let answer = try client.readResponse()
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success, "the server stops once the waiting answer left")

        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, "journaled")
        XCTAssertEqual(try Self.journaledStatuses(writer.database, url: "/waiting"), [200], "the journal holds the answer the client got")
    }

    /// A strict delayed mock's answer at shutdown: the delay is cut short, the entry journaled,
    /// and the mock's own answer leaves once it is committed (it used to be a 503 beside a
    /// journaled 200).
    func testADelayedAnswerCutShortAtShutdownIsTheOneJournaled() throws {
        let server = try TestServer { $0.durability = .strict }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/delayed", body: "late", delay: 30)
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try client.send(raw: Array("GET /delayed HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)  // parked for its delay

        server.stop()
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, "late")
        let reader = try Database(path: server.databasePath, mode: .readOnly)
        defer { reader.close() }
        XCTAssertEqual(try Self.journaledStatuses(reader, url: "/delayed"), [200], "the journal holds the answer the client got")
    }

    /// While an answer still waits for its commit past the stop's grace second, a new request on
    /// a kept-alive connection is refused at once with the 503 and not journaled: a stream of
    /// requests cannot hold the stop up (each would be journaled and wait for a commit), and the
    /// journal claims nothing for them. (It used to be parked for its commit like the first.)
    func testARequestAfterTheGraceSecondIsRefusedUnjournaled() throws {
        let server = try TestServer { $0.durability = .strict }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/waiting", body: "journaled")
        try E2E.addMock(control, url: "/late", body: "late")
        let late = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
        XCTAssertEqual(try late.request("GET", "/catbird/version").status, 200, "connected before the stop")

        let writer = try JournalWriterHold(server)
        defer { writer.end() }
        let waiting = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try waiting.send(raw: Array("GET /waiting HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)
        let stopped = server.stopInBackground()
        usleep(1_500_000)  // past the grace second, /waiting still waiting
        let refused = try late.request("GET", "/late")
        try writer.release()

        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(try waiting.readResponse().text, "journaled")
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try Self.journaledStatuses(writer.database, url: "/late"), [], "the refused request is not journaled")
        XCTAssertEqual(try Self.journaledStatuses(writer.database, url: "/waiting"), [200])
    }

    /// Regression: the 503 a stopping server gives in place of an answer had no log line and
    /// no metric: a control call that would be answered later (`GET /catbird/api/health`, on
    /// the quick control pool) during the stop's grace second, and a mock request past it, both
    /// on connections kept alive from before the stop, while a strict answer holds the stop up.
    /// Each is now logged at info level, as every answer is; neither is journaled.
    func testTheStoppingServersOwn503sAreLogged() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-stopping-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", database, "--durability", "strict", "--log-level", "info"], in: directory)
        let control = try server.client()
        try E2E.addMock(control, url: "/waiting", body: "journaled")
        try E2E.addMock(control, url: "/late", body: "late")
        let (early, late) = (try server.client(), try server.client())
        XCTAssertEqual(try early.request("GET", "/catbird/version").status, 200, "connected before the stop")
        XCTAssertEqual(try late.request("GET", "/catbird/version").status, 200, "connected before the stop")

        let writer = try JournalWriterHold(path: database)
        defer { writer.end() }
        let waiting = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
        try waiting.send(raw: Array("GET /waiting HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        usleep(300_000)  // parked, waiting for the commit the lock holds up
        kill(server.process.processIdentifier, SIGTERM)
        usleep(300_000)
        let duringGrace = try early.request("GET", "/catbird/api/health")
        usleep(1_200_000)  // past the grace second
        let pastGrace = try late.request("GET", "/late")
        try writer.release()
        XCTAssertEqual(try waiting.readResponse().text, "journaled")
        let (status, _, log) = try server.terminate()

        XCTAssertEqual(status, 0, log)
        XCTAssertEqual(duringGrace.status, 503, duringGrace.text)
        XCTAssertEqual(pastGrace.status, 503, pastGrace.text)
        XCTAssertTrue(log.contains("[info] GET /catbird/api/health → 503: the server is stopping"), log)
        XCTAssertTrue(log.contains("[info] GET /late → 503: the server is stopping"), log)
        XCTAssertEqual(try Self.journaledStatuses(writer.database, url: "/late"), [], "not journaled")
    }

    private static func journaledStatuses(_ db: Database, url: String) throws -> [Int64] {
        try db.query("SELECT status FROM requests WHERE url = ? ORDER BY id", [.text(url)]).compactMap { $0[0].intValue }
    }
}
