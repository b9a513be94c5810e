import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A delayed mock's answer carries the time it is sent, and when the server stops during the
/// delay the answer, its log line and its journal entry say that the delay was cut short
/// (docs/protocol.md#delays).
final class DelayedAnswerTimeTests: ServerTestCase {
    /// Seconds since 1970 of an HTTP date (`Wed, 02 Dec 2026 10:16:29 GMT`).
    private static func seconds(_ date: String?) throws -> Int {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return Int(try XCTUnwrap(formatter.date(from: try XCTUnwrap(date))).timeIntervalSince1970)
    }

    /// Regression (tester finding try9a F17): a mock with `"delay": 2` answered after 2 s with
    /// the `Date` of the request's arrival, 2 s old (RFC 9110 §6.6.1: the time the message was
    /// generated), and journaled that `Date`. Both are the time it is sent now. A mock's own
    /// `Date` field is sent as given.
    func testADelayedAnswersDateIsTheTimeItIsSent() throws {
        try E2E.addMock(client, url: "/slow", body: "late", delay: 2)
        try E2E.addMock(client, url: "/dated", responseHeaders: ["Date": "Tue, 01 Dec 2026 00:00:00 GMT"], body: "d", delay: 1)
        let before = Int(Date().timeIntervalSince1970.rounded(.down))
        let answer = try client.request("GET", "/slow")
        XCTAssertEqual(answer.text, "late")
        let sent = try Self.seconds(answer.header("Date"))
        XCTAssertGreaterThanOrEqual(sent, before + 2, "Date \(answer.header("Date") ?? "none") is from before the delay ended")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).last)
        let journaled = (entry["response"] as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertEqual(journaled?["Date"] as? String, answer.header("Date"), "the journal has the Date sent")

        let dated = try client.request("GET", "/dated")
        XCTAssertEqual(dated.header("Date"), "Tue, 01 Dec 2026 00:00:00 GMT")
    }

    /// Regression (tester finding try10a F16, second half): a delayed answer that SIGTERM sent
    /// early (the stopping server answers it at once) was logged `+30s delay` and journaled with
    /// nothing saying the delay had not passed. The log line and the entry's `problem` say it
    /// was cut short and when it was sent.
    func testADelayCutShortByShutdownIsLoggedAndJournaledAsCutShort() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-cut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "info"], in: directory)
        let control = try server.client()
        try E2E.addMock(control, url: "/slow", body: "cut", delay: 30)
        let waiting = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
        try waiting.send(raw: Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        XCTAssertTrue(try E2E.waitForHits(control, url: "/slow", 1), "parked in its delay")
        kill(server.process.processIdentifier, SIGTERM)
        XCTAssertEqual(try waiting.readResponse().text, "cut")
        let (status, _, log) = try server.terminate()
        XCTAssertEqual(status, 0, log)
        XCTAssertTrue(E2E.matches(log, #"GET /slow → 200 mock tenant=\(default\) [0-9.]+ms \+30s delay, cut short: sent [0-9.]+ms after arrival as the server stopped"#), log)

        let row = try XCTUnwrap(try Database(path: database).query(
            "SELECT duration_ms, problem FROM requests WHERE url = '/slow'").first)
        let duration = try XCTUnwrap(row[0].doubleValue)
        XCTAssertLessThan(duration, 30_000)
        let problem = try XCTUnwrap(row[1].stringValue)
        XCTAssertTrue(
            E2E.matches(problem, #"^the server was stopping: the answer was sent [0-9]+ ms after the request arrived, not after the mock's 30 s delay$"#),
            problem)
    }
}
