import CatbirdDomain
import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// The journal queue's per-tenant share while the writer fails (a busy file: another
/// connection holds SQLite's write lock past the writer's 5 s busy timeout): the share is not
/// kept then, so held rows are queued and their answers leave, none dropped while the queue has
/// room; large rows still fill at most three quarters of the queue, so another tenant's hit is
/// answered at once (docs/tenancy.md#fair-shares; README.md#storage-faults).
final class JournalShareWhileFailingTests: XCTestCase {
    /// One worker thread and the default queue (16,384 rows, 16 MiB).
    private func server() throws -> (TestServer, RawHTTPClient) {
        let server = try TestServer { $0.threadCount = 1 }
        let client = try server.client()
        try E2E.addMock(client, tenant: "A", method: "POST", url: "/a/up", body: "ok")
        try E2E.addMock(client, tenant: "B", url: "/b/hit", body: "hello")
        return (server, client)
    }

    /// Regression (tester23c-F1, and the clean-clone CI of d5ddd7d): a write lock held past the
    /// busy timeout made the writer fail, and the rows held for their tenant's share were
    /// dropped 2 s later (answered, but missing from the journal: 299 of 900 in the finding),
    /// although the queue had room for all of them; kept held instead, their answers waited for
    /// the whole failure (a file-size limit: past the client's 30 s). Now the failing writer
    /// queues them: every upload is answered while the lock is still held, none is dropped,
    /// and every row is written once it is let go.
    func testHeldRowsAreQueuedAndAnsweredWhileABusyFileFailsTheWriter() throws {
        let (server, client) = try server()
        defer { server.removeFiles() }
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let uploads = try JournalShare.sendUploads(server, count: 25)
        usleep(300_000)
        XCTAssertGreaterThan(try E2E.metrics(client)["catbird_journal_held_entries"] ?? -1, 0, "the share holds while the writer succeeds")

        try JournalShare.waitUntilWriterFails(client)
        for upload in uploads {
            let answer = try upload.readResponse()
            XCTAssertEqual(answer.status, 200, answer.text)
        }
        // Longer than an append's 2 s patience (``JournalWriter/appendPatience``) into the failure.
        sleep(3)
        var metrics = try E2E.metrics(client)
        XCTAssertEqual(metrics["catbird_journal_dropped_rows_total"], 0, "\(metrics)")
        XCTAssertEqual(metrics["catbird_journal_held_entries"], 0, "\(metrics)")
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 503, "the lock is still held")

        try hold.release()
        XCTAssertEqual(try JournalShare.rows(client, tenant: "A"), uploads.count)
        metrics = try E2E.metrics(client)
        XCTAssertEqual(metrics["catbird_journal_dropped_rows_total"], 0, "\(metrics)")
        let hits = try E2E.mocks(client, tenant: "A").first.flatMap { JSONNumber.int($0["hits"]) }
        XCTAssertEqual(hits, uploads.count)
    }

    /// Regression (tester23c-F2): once the writer failed, a tenant's large rows went around
    /// its share straight into the queue (16.7 MB of one tenant's rows in the finding, the whole
    /// queue), and another tenant's hit then waited 2 s for room. Now large rows fill at most
    /// three quarters of the queue while the writer fails: past that they are held, and dropped
    /// (answered all the same) once they found no room for 2 s, as a plain append's entry is
    /// with the queue full, while another tenant's hit is answered at once. 230 uploads of
    /// 60,000 bytes (about 61 KB queued each, 14 MB in all) pass the 12 MiB.
    func testLargeRowsFillAtMostThreeQuartersOfTheQueueWhileTheWriterFails() throws {
        let (server, client) = try server()
        defer { server.removeFiles() }
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        var uploads = try JournalShare.sendUploads(server, count: 25)
        try JournalShare.waitUntilWriterFails(client)
        uploads += try JournalShare.sendUploads(server, count: 205)
        usleep(300_000)

        let metrics = try E2E.metrics(client)
        // Three quarters of the default 16 MiB, plus the row that may pass it (a queue with room takes one).
        let bound = Double((16 << 20) / 4 * 3 + 62_000)
        XCTAssertLessThanOrEqual(metrics["catbird_journal_queue_bytes"] ?? .infinity, bound, "\(metrics)")
        XCTAssertGreaterThan(metrics["catbird_journal_held_entries"] ?? -1, 0, "\(metrics)")
        let hit = try RawHTTPClient(port: server.port, timeoutSeconds: 3)
        let started = ContinuousClock.now
        let answer = try hit.request("GET", "/b/hit", headers: [("X-Catbird-Parallel-Id", "B")])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))

        // Every upload answered while the lock is held: queued, or dropped after its patience.
        for upload in uploads { XCTAssertEqual(try upload.readResponse().status, 200) }
        let failing = try E2E.metrics(client)
        XCTAssertEqual(failing["catbird_journal_held_entries"], 0, "\(failing)")
        let dropped = try XCTUnwrap(failing["catbird_journal_dropped_rows_total"], "\(failing)")
        XCTAssertGreaterThan(dropped, 0, "\(failing)")

        try hold.release()
        XCTAssertEqual(try JournalShare.rows(client, tenant: "A"), uploads.count - Int(dropped))
        XCTAssertEqual(try JournalShare.rows(client, tenant: "B"), 1)
        let after = try E2E.metrics(client)
        XCTAssertEqual(after["catbird_journal_dropped_rows_total"], dropped, "\(after)")
        XCTAssertEqual(after["catbird_journal_queue_bytes"], 0, "\(after)")
        // The dropped rows' mock hits are kept (relaxed durability): every upload counted.
        let hits = try E2E.mocks(client, tenant: "A").first.flatMap { JSONNumber.int($0["hits"]) }
        XCTAssertEqual(hits, uploads.count)
    }
}
