import CatbirdTestSupport
import Foundation
import XCTest

/// An SQL query runs only once the tenant's requests answered before it are in the journal
/// (docs/protocol.md#read-your-writes), and waits for that within its bound on waiting
/// (docs/protocol.md#sql): a journal writer held past it (another process holding the database
/// file's write lock) makes it a 503 with `Retry-After` that says so, logged as a warning (load,
/// not a fault), and the query never ran.
final class SQLJournalFlushWaitTests: XCTestCase {
    /// Regression: the flush before the query had no bound, neither the 2-second time limit
    /// (which starts when the query runs) nor the 5-second wait bound: with the writer held for
    /// 3 s, a query with a 1-second wait bound answered 200 after the whole hold (as long as
    /// the writer waited: up to three 5-second busy waits). Now a 503 at its bound; once the
    /// writer is let go, the next query sees the request.
    func testAQueryWhoseJournalCannotBeWrittenWithinTheWaitBoundIsA503() throws {
        let server = try TestServer { $0.sqlWaitLimit = .seconds(1) }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "t", url: "/hit", body: "hit")
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        XCTAssertEqual(try client.request("GET", "/hit", headers: E2E.tenantHeader("t")).text, "hit")  // queued, not written
        // The query is sent, the writer let go 3 s later, and only then is the answer read: the
        // 503 says how long the query waited for the journal, its bound and not the hold.
        let body = #"{"sql": "SELECT count(*) FROM requests"}"#
        try client.send(raw: Array((
            "POST /catbird/api/sql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: t\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8))
        sleep(3)
        try hold.release()
        let answer = try client.readResponse()
        XCTAssertEqual(answer.status, 503, answer.text)
        XCTAssertEqual(answer.header("Retry-After"), "1")
        let reason = answer.object["reason"] as? String ?? ""
        let waited = reason.dropFirst("the query never ran: it waited ".count).prefix { $0.isNumber }
        XCTAssertEqual(reason, "the query never ran: it waited \(waited)"
            + " ms, the most a query waits, for the journal writer to store this tenant's requests answered before it (a query sees "
            + "them; the writer is behind, or the database file is busy); retry it (Retry-After)")
        XCTAssertLessThan(Int(waited) ?? .max, 2_000, "it gave up at its 1-second bound, not when the writer was let go")

        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: "t").first?.first), 1,
                       "once written, the query sees the request")
    }

    /// The same 503 from the `catbird` process with its default 5-second bound: the log line is
    /// a warning, not an error (an error-level line is a fault someone must look at; this is
    /// load, as the connections' own wait past its bound is: `ServerBusyError`).
    func testTheFlushWaitsA503IsLoggedAsAWarning() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-flush-wait-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let server = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        defer { _ = try? server.terminate() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "t", url: "/hit", body: "hit")
        let hold = try JournalWriterHold(path: database)
        defer { hold.end() }
        XCTAssertEqual(try client.request("GET", "/hit", headers: E2E.tenantHeader("t")).text, "hit")
        let answer = try E2E.sql(client, "SELECT count(*) FROM requests", tenant: "t")
        try hold.release()
        XCTAssertEqual(answer.status, 503, answer.text)
        XCTAssertEqual(answer.header("Retry-After"), "1")
        let reason = answer.object["reason"] as? String ?? ""
        let log = server.stderrText
        let lines = log.split(separator: "\n").filter { $0.contains("answered 503: the query never ran") }
        XCTAssertEqual(lines.count, 1, log)
        XCTAssertTrue(lines.first?.contains("[warning] answered 503: \(reason)") == true, log)
        XCTAssertFalse(log.contains("[error] answered 503"), log)
    }
}
