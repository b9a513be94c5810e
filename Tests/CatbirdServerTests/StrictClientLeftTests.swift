import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` and a client that hangs up while its answer waits for the commit
/// (README.md#durability): the row and the hit it carries are committed before the answer can
/// leave, so they stay (the limit is spent once, never given back nor spent twice). The metrics
/// count the request once: as sent, or as the client gone when libmicrohttpd reads the hang-up
/// before it writes the answer (which comes first is up to libmicrohttpd). The connection is
/// let go once the commit releases it; nothing stays parked.
final class StrictClientLeftTests: XCTestCase {
    func testAClientGoneWhileItsAnswerWaitsForTheCommitKeepsItsEntryAndHit() throws {
        let server = try TestServer.strictWithOneWorker()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/held", body: "held", limit: 2)
        let writer = try JournalWriterHold(server)
        defer { writer.end() }

        let leaving = try server.client()
        try leaving.send(raw: Array("GET /held HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        E2E.waitUntilWaiting(server, 1)
        leaving.hangUp()
        usleep(50_000)
        XCTAssertEqual(server.waitingAnswers, 1, "still held: a wait for a commit is not watched for a hang-up")

        try writer.release()
        // Counted once, as sent or as gone, when the worker has taken the connection back.
        func counted() throws -> (sent: Double, gone: Double) {
            let metrics = try E2E.metrics(control)
            return (metrics[#"catbird_requests_total{answered_by="mock",status_class="2xx"}"#] ?? 0,
                    metrics[#"catbird_requests_unanswered_total{reason="client_left"}"#] ?? 0)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var count = try counted()
        while count.sent + count.gone < 1, ContinuousClock.now < deadline {
            usleep(5_000)
            count = try counted()
        }
        XCTAssertEqual(server.waitingAnswers, 0, "let go once the commit released it")
        usleep(50_000)
        count = try counted()
        XCTAssertEqual(count.sent + count.gone, 1, "counted once: \(count)")
        let rows = try writer.database.query("SELECT status, mock_id IS NOT NULL FROM requests WHERE url = '/held'")
        XCTAssertEqual(rows.map { [$0[0].intValue, $0[1].intValue] }, [[200, 1]], "journaled as the mock's answer, committed before it could leave")

        // The hit was spent once: one use of the limit of 2 is left.
        XCTAssertEqual(try control.request("GET", "/held").text, "held")
        XCTAssertEqual(try control.request("GET", "/held").status, 404, "the limit of 2 is used up")
    }
}
