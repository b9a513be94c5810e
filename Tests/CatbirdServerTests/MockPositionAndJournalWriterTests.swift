import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdSupport
@_spi(Server) import CatbirdWire
import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// Regressions for the server review findings: mock positions, the same-pattern index, the
/// journal writer's bounded rounds and its behaviour after `stop()`, and deterministic response
/// header order.
final class MockPositionAndJournalWriterTests: XCTestCase {
    // MARK: - Positions

    /// `(url, position)` of the tenant's listed mocks, in match order.
    private func positions(_ client: RawHTTPClient, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Int] {
        var result: [String: Int] = [:]
        for mock in try E2E.mocks(client, tenant: nil, file: file, line: line) {
            let url = ((mock["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String ?? "?"
            result[url] = mock["position"] as? Int
        }
        return result
    }

    /// A mock used up by its limit leaves its position taken: the next `update` appends after
    /// it, whether or not the journal writer has deleted its row yet, and after a restart.
    func testUpdateAfterUsedUpLastMockStillAppendsAfterIt() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, url: "/a", body: "a")
        try E2E.addMock(client, url: "/b", body: "b", limit: 1)
        XCTAssertEqual(try client.request("GET", "/b").text, "b")
        XCTAssertEqual(try client.request("GET", "/b").status, 404, "used up")
        // Before the journal writer deleted the used-up row…
        try E2E.addMock(client, url: "/c", body: "c")
        // …and after (a journal read flushes the writer).
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests").status, 200)
        try E2E.addMock(client, url: "/d", body: "d")
        XCTAssertEqual(try positions(client), ["/a": 1, "/c": 3, "/d": 4])

        // Using up the mock with the highest position does not let the next one take it.
        try E2E.addMock(client, url: "/e", body: "e", limit: 1)
        XCTAssertEqual(try client.request("GET", "/e").text, "e")
        try E2E.addMock(client, url: "/f", body: "f")
        XCTAssertEqual(try positions(client)["/f"], 6)

        // After a restart the stored positions are kept and new ones follow them.
        try server.restart()
        client = try server.client()
        try E2E.addMock(client, url: "/g", body: "g")
        XCTAssertEqual(try positions(client), ["/a": 1, "/c": 3, "/d": 4, "/f": 6, "/g": 7])

        // removeAll deletes every row at once, so numbering may start over.
        try E2E.removeAll(client, tenant: nil)
        try E2E.addMock(client, url: "/h", body: "h")
        XCTAssertEqual(try positions(client), ["/h": 1])
    }

    // MARK: - Same pattern

    /// `update` with a header name spelled differently replaces the mock in place (same
    /// position, new id, new spelling); `remove` finds it under a third spelling; a different
    /// header value is a different pattern.
    func testReplaceInPlaceWithCaseDifferentHeaderNames() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/t", headerPatterns: ["X-Token": ("equal", "abc")], body: "first")
        try E2E.addMock(client, url: "/*", kind: "wildcard", body: "catch-all")
        try E2E.addMock(client, url: "/t", headerPatterns: ["x-token": ("equal", "abc")], body: "second")
        try E2E.addMock(client, url: "/t", headerPatterns: ["x-token": ("equal", "other")], body: "other")

        var mocks = try E2E.mocks(client, tenant: nil)
        XCTAssertEqual(mocks.count, 3, "the case-different update replaced, the different value added")
        XCTAssertEqual(mocks.first?["position"] as? Int, 1, "replaced in place")
        let headers = (mocks.first?["pattern"] as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertEqual(headers.map { Array($0.keys) }, ["x-token"], "the replacement keeps its own spelling")
        XCTAssertEqual(try client.request("GET", "/t", headers: [("X-Token", "abc")]).text, "second")

        let remove = E2E.jsonText([
            "type": "remove", "pattern": E2E.pattern(url: "/t", headers: ["X-TOKEN": ("equal", "abc")]),
        ])
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", remove).status, 204)
        mocks = try E2E.mocks(client, tenant: nil)
        XCTAssertEqual(mocks.count, 2)
        XCTAssertEqual(try client.request("GET", "/t", headers: [("X-Token", "abc")]).text, "catch-all")
        // The "other" mock (position 3) comes after the catch-all (position 2).
        XCTAssertEqual(try client.request("GET", "/t", headers: [("X-Token", "other")]).text, "catch-all")
        XCTAssertEqual(mocks.map { $0["position"] as? Int }, [2, 3])

        // Removed and added again: a new mock at the end, not the old position.
        try E2E.addMock(client, url: "/t", headerPatterns: ["X-Token": ("equal", "abc")], body: "again")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).last?["position"] as? Int, 4)
    }

    // MARK: - Response header order

    /// A mock's response headers are sent, and journaled, sorted by name, whatever the hash seed.
    func testMockResponseHeadersAreSortedByName() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let names = (0..<12).map { "X-H\(String(UnicodeScalar(UInt8(65 + ($0 * 7) % 12))))" }
        try E2E.addMock(
            client, url: "/h", responseHeaders: Dictionary(uniqueKeysWithValues: names.map { ($0, "v") }), body: "h")
        let answer = try client.request("GET", "/h")
        XCTAssertEqual(answer.headers.map(\.name).filter { $0.hasPrefix("X-H") }, names.sorted())

        let journal = try client.request("GET", "/catbird/api/requests")
        let requests = journal.object["requests"] as? [[String: Any]] ?? []
        let response = requests.last?["response"] as? [String: Any]
        let journaled = response?["headers"] as? [String: Any] ?? [:]
        XCTAssertEqual(Set(journaled.keys.filter { $0.hasPrefix("X-H") }), Set(names))
    }

    // MARK: - Journal writer

    /// A temporary database with the schema, its write connection shared by a mock store and a
    /// journal writer, and a read connection for checking progress.
    private final class Domain {
        let directory: URL
        let path: String
        let writer: SerialDatabase
        let reader: Database
        let mocks: MockStore
        let journal: JournalWriter

        init(capacity: Int = 50_000, waiterGatherWindow: Duration = JournalWriter.defaultWaiterGatherWindow) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-review-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("catbird.sqlite").path
            let connection = try Database(path: path, mode: .readWrite)
            _ = try Schema.migrate(connection)
            writer = SerialDatabase(connection)
            reader = try Database(path: path, mode: .readOnly)
            mocks = try MockStore(database: writer)
            journal = JournalWriter(
                database: writer, capacity: capacity, byteCapacity: 1 << 30, bodyLimit: 4096,
                waiterGatherWindow: waiterGatherWindow, log: Logger(level: .error))
        }

        func journalRows() throws -> Int {
            Int(try reader.query("SELECT count(*) FROM requests").first?[0].intValue ?? -1)
        }

        func close() {
            journal.stop()
            reader.close()
            writer.close()
            try? FileManager.default.removeItem(at: directory)
        }

        static func entry(_ index: Int) -> JournalEntry {
            JournalEntry(
                time: Timestamp.now(), tenant: .defaultTenant, method: "GET", url: "/backlog/\(index)",
                requestHeaders: #"{"Host":"127.0.0.1"}"#, requestBody: Array(repeating: 0x61, count: 512),
                status: 404, responseHeaders: #"{"Content-Type":"application/json"}"#,
                responseBody: Array(repeating: 0x62, count: 512), answeredBy: .unanswered, mockHit: nil, durationMs: 0.1)
        }
    }

    /// The writer commits a backlog in rounds of at most ``JournalWriter/maxBatchSize`` and lets
    /// go of the write connection between them, so a control change completes long before the
    /// backlog is written; reads after `flush()` still see every entry.
    func testControlChangeCompletesWhileLargeJournalBacklogIsWritten() throws {
        let domain = try Domain()
        defer { domain.close() }
        let total = 50_000
        // Queue the whole backlog while holding the write connection, so the writer cannot
        // start on it before it is all there.
        try domain.writer.use { _ in
            for index in 0..<total { domain.journal.append(Domain.entry(index)) }
        }
        // Wait until two partial counts have been committed one after the other: the backlog
        // is being written in rounds (one transaction for it all would jump straight to total).
        var partial: [Int] = []
        let deadline = Date().addingTimeInterval(30)
        while partial.count < 2, Date() < deadline {
            let rows = try domain.journalRows()
            if rows == total { break }
            if rows > 0, partial.last != rows { partial.append(rows) }
            usleep(100)
        }
        XCTAssertEqual(partial.count, 2, "committed in rounds; partial counts seen: \(partial)")

        let mock = try domain.mocks.update(
            RequestPattern(method: "GET", url: PatternMatch(kind: .equal, value: "/control")),
            response: ResponseMock(status: 201), tenant: .defaultTenant)
        let afterControl = try domain.journalRows()
        XCTAssertEqual(mock.position, 1)
        XCTAssertLessThan(afterControl, total, "the control change waited for the whole backlog (\(partial) rows before it)")

        domain.journal.flush()
        XCTAssertEqual(try domain.journalRows(), total, "flush waits for every round")
    }

    /// Near misses kept as their own text count toward the queue's byte bound; near misses that
    /// are bytes of the response body are not counted twice (JournalWriter.byteCapacity).
    func testNearMissTextCountsTowardTheQueuedBytesOnce() throws {
        var copied = Domain.entry(0)
        copied.nearMisses = .text(String(repeating: "n", count: 10_000))
        var pointing = Domain.entry(1)
        pointing.nearMisses = .inResponseBody(0..<512)
        let plain = 512 + 512 + copied.requestHeaders.utf8.count + copied.responseHeaders.utf8.count + "/backlog/0".utf8.count
        for (entry, expected) in [(copied, plain + 10_000), (pointing, plain)] {
            let domain = try Domain()
            defer { domain.close() }
            // The longest queue is recorded by the append itself, into an empty queue.
            domain.journal.append(entry)
            domain.journal.flush()
            XCTAssertEqual(domain.journal.statistics().longestQueueBytes, expected)
            let row = try domain.reader.query("SELECT length(near_misses), near_misses_copy IS NULL, near_misses_offset FROM requests")
            XCTAssertEqual(
                row.map(\.values), [expected > plain ? [.integer(10_000), .integer(0), .null] : [.integer(512), .integer(1), .integer(1)]])
        }
    }

    /// `flush()` sees every entry appended before it when appends keep arriving in rounds.
    func testFlushSeesEveryEntryAcrossRounds() throws {
        let domain = try Domain(capacity: 2_500)
        defer { domain.close() }
        for round in 0..<3 {
            for index in 0..<3_100 { domain.journal.append(Domain.entry(round * 10_000 + index)) }
            domain.journal.flush()
            XCTAssertEqual(try domain.journalRows(), (round + 1) * 3_100)
        }
    }

    /// One batch of 77 entries from three tenants, runs and interleavings mixed, written by the
    /// multi-row INSERTs (32 rows per statement, then 32, 8, 4, 1): rows in append order with
    /// consecutive ids, and each tenant's latest id handed to the waiters is its highest row.
    func testABatchOfInterleavedTenantsKeepsOrderAndEachTenantsLatestID() throws {
        let domain = try Domain()
        defer { domain.close() }
        let tenants = (0..<77).map { index -> TenantID in
            index < 10 ? TenantID("a") : index < 40 ? TenantID(["a", "b", "c"][index % 3]) : index < 70 ? TenantID("b") : TenantID("c")
        }
        try domain.writer.use { _ in  // queued while the writer cannot start: one batch
            for (index, tenant) in tenants.enumerated() {
                var entry = Domain.entry(index)
                entry.tenant = tenant
                domain.journal.append(entry)
            }
        }
        domain.journal.flush()
        let rows = try domain.reader.query("SELECT id, url, tenant FROM requests ORDER BY id")
        XCTAssertEqual(rows.map { $0[1].stringValue }, (0..<77).map { "/backlog/\($0)" })
        XCTAssertEqual(rows.map { $0[2].stringValue }, tenants.map(\.rawValue))
        let ids = rows.compactMap { $0[0].intValue }
        XCTAssertEqual(ids, Array(ids[0]..<(ids[0] + 77)), "consecutive ids")
        for tenant in ["a", "b", "c"].map(TenantID.init) {
            let highest = zip(ids, tenants).filter { $0.1 == tenant }.map(\.0).max()!
            let woken = Mutex<[Bool]>([])
            // The writer tells the waiters right after the commit that flush() waited for.
            domain.journal.waiters.wait(for: tenant, after: highest - 1, timeout: .seconds(10)) { committed in
                woken.withLock { $0.append(committed == .committed) }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while woken.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(1000) }
            XCTAssertEqual(woken.withLock { $0 }, [true], "\(tenant): a row above \(highest - 1) is committed")
            domain.journal.waiters.wait(for: tenant, after: highest, timeout: .milliseconds(50)) { committed in
                woken.withLock { $0.append(committed == .committed) }
            }
            while woken.withLock({ $0.count < 2 }) && ContinuousClock.now < deadline { usleep(1000) }
            XCTAssertEqual(woken.withLock { $0 }, [true, false], "\(tenant): nothing above \(highest)")
        }
    }

    /// Strict durability's group commit is sized by the last group (JournalWriter's notes): after
    /// a round released six commit waiters, the next waiter is held until three (half) wait, and
    /// the three are released by one commit; after that round of three a lone waiter is not held
    /// (half of three, rounded down, is one); after a round of four, one is held again and a
    /// flush ends the wait at once. The window is 30 s here, so "held" cannot be the writer being
    /// slow, and "not held" cannot be the window ending.
    func testACommitWaitsForHalfAsManyWaitersAsTheLastRoundReleased() throws {
        let domain = try Domain(waiterGatherWindow: .seconds(30))
        defer { domain.close() }
        let released = Mutex<[Int]>([])
        func wait(for ticket: JournalTicket, _ index: Int) {
            domain.journal.whenCommitted(ticket) { committed in released.withLock { $0.append(committed ? index : -index) } }
        }
        func appendAndWait(_ index: Int) {
            wait(for: domain.journal.append(Domain.entry(index)), index)
        }
        func waitUntilReleased(_ count: Int) {
            let deadline = ContinuousClock.now + .seconds(10)
            while released.withLock({ $0.count < count }) && ContinuousClock.now < deadline { usleep(1000) }
        }
        // One round of `indices`: every entry is queued before any waiter is registered (a
        // waiter wakes the writer), while the writer cannot start its transaction, so the one
        // round takes them all.
        func round(_ indices: Range<Int>) {
            try? domain.writer.use { _ in
                let tickets = indices.map { domain.journal.append(Domain.entry($0)) }
                for (index, ticket) in zip(indices, tickets) { wait(for: ticket, index) }
            }
            waitUntilReleased(indices.upperBound)
            XCTAssertEqual(released.withLock { Array($0.suffix(indices.count)).sorted() }, Array(indices))
        }
        round(0..<6)
        let commitsBefore = domain.journal.statistics().commits

        appendAndWait(6)
        usleep(300_000)
        XCTAssertEqual(released.withLock { $0.count }, 6, "one waiter after a round of six is held")
        appendAndWait(7)
        usleep(300_000)
        XCTAssertEqual(released.withLock { $0.count }, 6, "two are held too")
        XCTAssertEqual(domain.journal.statistics().commits, commitsBefore, "two are held: nothing committed")
        appendAndWait(8)
        waitUntilReleased(9)
        XCTAssertEqual(released.withLock { Array($0.dropFirst(6)).sorted() }, [6, 7, 8], "the third waiter ends the wait")
        XCTAssertEqual(domain.journal.statistics().commits, commitsBefore + 1, "the three are released by one commit")

        appendAndWait(9)  // half of three, rounded down: one
        waitUntilReleased(10)
        XCTAssertEqual(released.withLock { $0.last }, 9, "a lone waiter after a round of three is committed at once")

        round(10..<14)
        let commitsBeforeHeld = domain.journal.statistics().commits
        appendAndWait(14)
        usleep(300_000)
        XCTAssertEqual(released.withLock { $0.count }, 14, "held again: the last round released four")
        // Not merely a slow writer: nothing was committed while it was held.
        XCTAssertEqual(domain.journal.statistics().commits, commitsBeforeHeld, "held again: no commit before the flush")
        domain.journal.flush()
        waitUntilReleased(15)
        XCTAssertEqual(released.withLock { $0.last }, 14, "a flush ends the wait")
        XCTAssertEqual(domain.journal.statistics().commits, commitsBeforeHeld + 1, "the flush commits the held entry once")

        appendAndWait(15)  // the last round released one: not held
        waitUntilReleased(16)
        XCTAssertEqual(released.withLock { $0.last }, 15, "a lone waiter after a round of one is committed at once")
    }

    /// After `stop()` an appended entry is dropped, and `flush()` does not wait for it.
    func testAppendAfterStopIsDropped() throws {
        let domain = try Domain()
        defer { domain.close() }
        domain.journal.append(Domain.entry(0))
        domain.journal.stop()
        XCTAssertEqual(try domain.journalRows(), 1, "stop writes what is queued")
        domain.journal.append(Domain.entry(1))
        domain.journal.flush()
        XCTAssertEqual(try domain.journalRows(), 1, "appended after stop: dropped")
    }
}
