import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A tenant's large journal entries hold at most its share of the journal queue
/// (docs/tenancy.md#fair-shares): past it, its answers wait with their entries, their
/// connections parked, and the workers go on serving other tenants.
final class JournalTenantShareTests: XCTestCase {
    /// Tenant A's uploads: 60,000-byte bodies, as in the finding.
    private static let upload = [UInt8](repeating: UInt8(ascii: "u"), count: 60_000)
    private static let uploads = 25
    /// Tenant A's downloads' answer: 60,000 bytes, asked by small `GET`s (the entry is large by
    /// its response alone).
    private static let download = String(repeating: "d", count: 60_000)

    /// One worker thread and a queue of 20 entries (the finding's 16 MiB reached by count,
    /// scaled down), the writer held by another connection's write lock.
    private func heldServer(limit: Int? = nil, durability: Durability = .relaxed, downloads: Bool = false) throws -> (TestServer, RawHTTPClient) {
        let server = try TestServer {
            $0.threadCount = 1
            $0.journalQueueCapacity = 20
            $0.durability = durability
        }
        let client = try server.client()
        try E2E.addMock(client, tenant: "A", method: "POST", url: "/a/up", body: "ok", limit: limit)
        try E2E.addMock(client, tenant: "A", url: "/a/down", body: Self.download, limit: limit)
        try E2E.addMock(client, tenant: "B", url: "/b/hit", body: "hello")
        return (server, client)
    }

    /// Sends tenant A's uploads, each on a connection of its own, without reading the answers.
    private func sendUploads(_ server: TestServer, downloads: Bool = false) throws -> [RawHTTPClient] {
        try (0..<Self.uploads).map { _ in
            let upload = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
            if downloads {
                try upload.send("GET", "/a/down", headers: [("X-Catbird-Parallel-Id", "A")])
            } else {
                try upload.send("POST", "/a/up", headers: [("X-Catbird-Parallel-Id", "A")], body: Self.upload)
            }
            usleep(10_000)  // in order: the last ones are those held
            return upload
        }
    }

    /// Regression (tester22b-F4, scaled down): while the journal writer could not write (here
    /// another connection's write lock; in the finding, one tenant uploading 60 KB bodies faster
    /// than the writer wrote them), tenant A's uploads filled the queue, and the worker that queued
    /// the next one waited for room; tenant B's mock hit on that worker waited behind it (here
    /// until the lock went: more than 3 s; in the finding B's p99 went from 1.6 to 64 ms). Now A's
    /// large entries past its 1 MiB share are held with their answers, B is answered at once,
    /// and once the writer writes again every held answer leaves and every entry is written.
    func testAnotherTenantsHitIsAnsweredWhileOneTenantsUploadsWaitForTheJournal() throws {
        let (server, client) = try heldServer()
        defer { server.removeFiles() }
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let uploads = try sendUploads(server)
        usleep(300_000)

        let hit = try RawHTTPClient(port: server.port, timeoutSeconds: 3)
        let started = ContinuousClock.now
        let answer = try hit.request("GET", "/b/hit", headers: [("X-Catbird-Parallel-Id", "B")])
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, "hello")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
        // About 17 entries of 60 KB fill A's 1 MiB share (besides the round the writer took
        // before the lock stopped it, at most 256 KiB); the rest are held with their answers.
        let metrics = try E2E.metrics(client)
        let held = metrics["catbird_journal_held_entries"] ?? -1
        XCTAssertGreaterThanOrEqual(held, Double(Self.uploads - 17 - 4), "\(metrics)")
        // The gauge counts the round the writer took too (tester finding tester50c-F5): A's 1 MiB
        // share, and that round's 256 KiB at most.
        XCTAssertLessThanOrEqual(
            metrics["catbird_journal_queue_bytes"] ?? .infinity, Double(1 << 20) + Double(256 << 10) + 2_000, "\(metrics)")
        XCTAssertEqual(metrics["catbird_journal_held_total"], held)

        try hold.release()
        for upload in uploads {
            let answer = try upload.readResponse()
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.text, "ok")
        }
        XCTAssertEqual(try E2E.journal(client, tenant: "A", once: Self.uploads).count, Self.uploads)
        XCTAssertEqual(try E2E.journal(client, tenant: "B", once: 1).count, 1)
        XCTAssertEqual(try E2E.metrics(client)["catbird_journal_held_entries"], 0)
    }

    /// Regression (tester23c-F3): a client that hangs up while its answer is held for its
    /// tenant's share is treated as one that hangs up during a mock's delay
    /// (docs/protocol.md#delays): journaled as 499, answered by none, with the `problem` saying
    /// nothing was sent, and the mock's use given back (here the last of its `limit`, which the
    /// held request had used up: the mock comes back, and the next request is answered by it).
    /// Before, the entry said 200 and the use was spent: the retry got a 404.
    /// Since tester25a-F11 the use is given back when the hang-up is noticed, before the hold ends.
    func testAClientThatLeftWhileItsAnswerWasHeldIsJournaled499AndKeepsTheLimit() throws {
        try checkClientLeftWhileHeld(.relaxed)
    }

    /// ``testAClientThatLeftWhileItsAnswerWasHeldIsJournaled499AndKeepsTheLimit()`` with strict
    /// durability: the share engages there only while commits wait (here the write lock holds
    /// the writer: each of the 25 uploads waits for its commit, their rows queued), and a client
    /// gone by the time its row is queued is treated alike.
    func testAClientThatLeftWhileItsAnswerWasHeldIsJournaled499AndKeepsTheLimitWithStrictDurability() throws {
        try checkClientLeftWhileHeld(.strict)
    }

    /// ``testAClientThatLeftWhileItsAnswerWasHeldIsJournaled499AndKeepsTheLimit()`` for small
    /// `GET`s whose mock answers 60,000 bytes: with relaxed durability a hit is kept refundable
    /// only when its entry may be held, and this one's size comes from the mock's body, known
    /// only once matched (review of the change that kept every hit refundable, which cost the
    /// one-mock hit 15-18 % of its rate).
    func testAClientThatLeftWhileItsLargeAnswerWasHeldKeepsTheLimit() throws {
        try checkClientLeftWhileHeld(.relaxed, downloads: true)
    }

    private func checkClientLeftWhileHeld(_ durability: Durability, downloads: Bool = false) throws {
        let (server, client) = try heldServer(limit: Self.uploads, durability: durability, downloads: downloads)
        defer { server.removeFiles() }
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let sentAt = ContinuousClock.now
        var uploads = try sendUploads(server, downloads: downloads)
        usleep(300_000)
        XCTAssertGreaterThan(try E2E.metrics(client)["catbird_journal_held_entries"] ?? -1, 0)
        let gone = uploads.removeLast()
        gone.hangUp()
        let waited = ContinuousClock.now - sentAt  // at most: the gone upload was sent last
        usleep(300_000)
        // Given back when the hang-up is noticed, while the answer would still be held
        // (tester25a-F11: only once the hold ended; the mock, used up, got others a 404).
        let url = downloads ? "/a/down" : "/a/up"
        func mock() throws -> [String: Any]? {
            try E2E.mocks(client, tenant: "A").first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == url }
        }
        XCTAssertEqual(JSONNumber.int(try mock()?["remainingLimit"]), 1, "the use is back while the writer is still held")
        XCTAssertGreaterThan(try E2E.metrics(client)["catbird_journal_held_entries"] ?? -1, 0, "still held")
        usleep(1_000_000)  // held on after the hang-up, which its entry's duration must not count

        try hold.release()
        for upload in uploads { XCTAssertEqual(try upload.readResponse().status, 200) }
        let journal = try E2E.journal(client, tenant: "A", once: Self.uploads)
        let left = journal.filter { ($0["problem"] as? String)?.contains("share of the journal queue; nothing was sent") == true }
        XCTAssertEqual(left.count, 1, "\(journal.map { $0["problem"] ?? "" })")
        let entry = try XCTUnwrap(left.first)
        XCTAssertEqual(JSONNumber.int((entry["response"] as? [String: Any])?["status"]), 499)
        XCTAssertEqual(entry["answeredBy"] as? String, "none")
        XCTAssertTrue(E2E.isNull(entry["mockId"]))
        // The time it waited until it hung up, not the whole hold after it (tester26b-F1:
        // 3,896 ms for a client that left 0.5 s in); here at least 1.3 s more.
        let bound = waited / .milliseconds(1) + 500
        XCTAssertLessThan(JSONNumber.double(entry["durationMs"]) ?? .infinity, bound, "\(entry["durationMs"] ?? "")")
        let statuses = journal.compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, Self.uploads - 1)
        // A held answer's entry counts the time it was held, at least the 0.6 s before the
        // release here (tester25a-F10: 0.08 ms for a 9 s wait, the log line said 10013 ms).
        let sent = journal.filter { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) == 200 }
        let longest = sent.compactMap { JSONNumber.double($0["durationMs"]) }.max() ?? 0
        XCTAssertGreaterThan(longest, 500, "the held answers' durations: \(sent.map { $0["durationMs"] ?? "" })")

        // The use the gone client took is back: in memory and in the mocks row.
        let mock = try XCTUnwrap(try mock(), "the used-up mock came back")
        XCTAssertEqual(JSONNumber.int(mock["hits"]), Self.uploads - 1)
        XCTAssertEqual(JSONNumber.int(mock["remainingLimit"]), 1)
        let row = try E2E.sqlRows(client, "SELECT hits, remaining_limit FROM mocks WHERE url_value = '\(url)'", tenant: "A")
        XCTAssertEqual(row.map { $0.map { JSONNumber.int($0) } }, [[Self.uploads - 1, 1]])
        let retry = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        let answer = downloads
            ? try retry.request("GET", "/a/down", headers: [("X-Catbird-Parallel-Id", "A")])
            : try retry.request("POST", "/a/up", headers: [("X-Catbird-Parallel-Id", "A")], body: Self.upload)
        XCTAssertEqual(answer.status, 200, answer.text.prefix(300).description)
        XCTAssertEqual(answer.text, downloads ? Self.download : "ok")
    }
}
