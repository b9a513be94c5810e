import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `--durability strict` and a mock's `delay` (README.md#durability, docs/answering-later.md):
/// when the delay ends, the answer waits for its journal entry's commit with its connection
/// parked, not on a worker thread. With one worker thread and the journal writer held up
/// (another connection holds SQLite's write lock), delayed answers stay withheld while a
/// request on another connection of the same worker is answered at once; once the lock goes,
/// every delayed answer leaves and is in the file.
final class StrictDelayedAnswerTests: XCTestCase {
    private static let delayedClients = 6

    func testDelayedAnswersWaitingForTheirCommitHoldNoWorker() throws {
        let server = try TestServer.strictWithOneWorker()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/delayed", body: "late", delay: 1)

        let writer = try JournalWriterHold(server)
        defer { writer.end() }

        let delayed = try (0..<Self.delayedClients).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Array("GET /delayed HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            return client
        }
        // Past the delay: each answer now waits for its entry's commit.
        usleep(1_500_000)

        // A worker blocked until the commit would leave this unanswered until the lock goes
        // (below, only after it); with the answers parked it is answered at once.
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 3)
        let started = ContinuousClock.now
        let version: RawResponse
        do {
            version = try other.request("GET", "/catbird/version")
        } catch {
            return XCTFail("GET /catbird/version on the worker's other connection got no answer within 3 s (\(error)): the worker waits for a commit")
        }
        let took = ContinuousClock.now - started
        XCTAssertEqual(version.status, 200, version.text)
        XCTAssertLessThan(took, .seconds(2), "the only worker thread was free while \(Self.delayedClients) delayed answers waited")
        XCTAssertEqual(
            delayed[0].readUntilQuiet(firstByteWithin: 100, quietAfter: 50), [],
            "no delayed answer leaves before its entry is committed")

        try writer.release()
        for client in delayed {
            let answer = try client.readResponse()
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.text, "late")
        }
        let rows = try writer.database.query("SELECT count(*) FROM requests WHERE url = '/delayed' AND status = 200")
        XCTAssertEqual(rows.first?[0].intValue, Int64(Self.delayedClients), "every delayed answer is journaled")
    }
}
