@testable import CatbirdDomain
import CatbirdStorage
import CatbirdSupport
import Foundation
import XCTest

/// A journal entry's `problem` added after the entry was queued (``JournalWriter/amend(_:problem:)``,
/// tester finding T13-F11: an answer its client hung up on mid-body), on a real database file:
/// found by its ticket whether it is still queued or already committed, after the entry's own
/// problem, and seen by the next flush.
final class JournalAmendmentTests: XCTestCase {
    private func entry(_ url: String, problem: String? = nil) -> JournalEntry {
        JournalEntry(
            time: "2026-12-02T10:00:00.000Z", tenant: TenantID("t"), method: "GET", url: url, requestHeaders: "{}",
            requestBody: [], status: 200, responseHeaders: "{}", responseBody: Array("answer".utf8), answeredBy: .mock,
            mockHit: nil, durationMs: 0.1, problem: problem)
    }

    func testAnAmendmentReachesItsEntryQueuedOrCommitted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-amend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("catbird.sqlite").path
        let connection = try Database(path: path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        let writer = SerialDatabase(connection)
        let reader = try Database(path: path, mode: .readOnly)
        defer { reader.close(); writer.close() }
        // A row from before this writer: its tickets start at 1, its row ids at 2.
        let early = JournalWriter(database: writer, bodyLimit: 4096, log: Logger(level: .error))
        early.append(entry("/before"))
        early.flush()
        early.stop()

        let journal = JournalWriter(database: writer, bodyLimit: 4096, log: Logger(level: .error))
        defer { journal.stop() }
        // Amended while possibly still queued (no flush in between).
        let first = journal.append(entry("/a"))
        let second = journal.append(entry("/b", problem: "its own"))
        _ = journal.append(entry("/c"))
        journal.amend(first, problem: "cut short")
        journal.amend(second, problem: "cut short")
        journal.flush()
        // Amended once committed.
        let fourth = journal.append(entry("/d"))
        journal.flush()
        journal.amend(fourth, problem: "cut short")
        journal.flush()
        let rows = try reader.query("SELECT url, problem FROM requests ORDER BY id").map { [$0[0].stringValue ?? "", $0[1].stringValue ?? "NULL"] }
        XCTAssertEqual(rows, [["/before", "NULL"], ["/a", "cut short"], ["/b", "its own; cut short"], ["/c", "NULL"], ["/d", "cut short"]])
    }

    /// A dropped batch takes tickets but no row ids: the runs on either side keep their own
    /// offsets, and the dropped entries have none.
    func testRowIDsAcrossADroppedBatch() {
        var ids = JournalRowIDs()
        ids.add(.init(firstSequence: 1, count: 3, firstID: 10))
        ids.add(.init(firstSequence: 4, count: 2, firstID: 13))  // continues: merged
        ids.add(.init(firstSequence: 9, count: 2, firstID: 15))  // tickets 6-8 dropped
        XCTAssertEqual((1...10).map { ids.rowID(of: $0) }, [10, 11, 12, 13, 14, nil, nil, nil, 15, 16])
    }
}
