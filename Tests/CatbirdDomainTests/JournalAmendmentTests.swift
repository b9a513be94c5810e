@testable import CatbirdDomain
import CatbirdStorage
import CatbirdSupport
import Foundation
import XCTest

/// A journal entry's `problem` added after the entry was queued (``JournalWriter/amend(_:problem:filePath:)``,
/// tester finding T13-F11: an answer its client hung up on mid-body), on a real database file:
/// found by its ticket whether it is still queued or already committed, after the entry's own
/// problem, and seen by the next flush.
final class JournalAmendmentTests: XCTestCase {
    private func entry(_ url: String, problem: String? = nil, filePath: String? = nil) -> JournalEntry {
        JournalEntry(
            time: "2026-12-02T10:00:00.000Z", tenant: TenantID("t"), method: "GET", url: url, requestHeaders: "{}",
            requestBody: [], status: 200, responseHeaders: "{}", responseBody: Array("answer".utf8), answeredBy: .mock,
            mockHit: nil, durationMs: 0.1, filePath: filePath, problem: problem)
    }

    /// A migrated database file (at `path`) in a new temporary folder: its write connection
    /// (serialised, as the server's) and a read-only one. `removeAll` closes both and deletes
    /// the folder.
    private func database() throws -> (writer: SerialDatabase, reader: Database, path: String, removeAll: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-amend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("catbird.sqlite").path
        let connection = try Database(path: path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        let writer = SerialDatabase(connection)
        let reader = try Database(path: path, mode: .readOnly)
        return (writer, reader, path, {
            reader.close()
            writer.close()
            try? FileManager.default.removeItem(at: directory)
        })
    }

    func testAnAmendmentReachesItsEntryQueuedOrCommitted() throws {
        let (writer, reader, _, removeAll) = try database()
        defer { removeAll() }
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

    /// Regression: an amendment to a row that was in the file when the byte count started
    /// (retention's ``JournalBytes``) but that the start-up scan had not read yet was counted
    /// twice: by the writer as it committed the amendment, and by the scan reading the amended
    /// row. The count must be the file's bytes exactly, whole and per tenant, for that row and
    /// for an amended row the scan had already read. The scan reads ``JournalBytes/scanChunk``
    /// rows a pass, so the last of `scanChunk + 1` rows is left for the second pass.
    func testAnAmendedRowTheStartUpScanHasNotReadIsCountedOnce() throws {
        let (writer, reader, _, removeAll) = try database()
        defer { removeAll() }
        let journal = JournalWriter(database: writer, bodyLimit: 4096, log: Logger(level: .error))
        defer { journal.stop() }
        let tickets = (0...JournalBytes.scanChunk).map { journal.append(entry("/row/\($0)")) }
        journal.flush()
        XCTAssertFalse(try writer.use { try journal.bytes.catchUp($0) }, "the first pass reads scanChunk rows, not the last one")

        journal.amend(tickets.first!, problem: "cut short")  // a row the scan has read
        journal.amend(tickets.last!, problem: "cut short ✂")  // a row it has not read yet
        journal.flush()
        XCTAssertTrue(try writer.use { try journal.bytes.catchUp($0) }, "the second pass reads the rest")

        let amended = try reader.query("SELECT count(*) FROM journal_rows WHERE problem LIKE 'cut short%'").first?[0].intValue
        XCTAssertEqual(amended, 2, "both rows are amended")
        let rows = try reader.query("SELECT tenant, sum(\(JournalBytes.rowBytes(""))) FROM journal_rows GROUP BY tenant")
        let rowBytes = Dictionary(uniqueKeysWithValues: rows.map { (TenantID($0[0].stringValue ?? ""), Int($0[1].intValue ?? 0)) })
        let bodyBytes = Int(try reader.query("SELECT ifnull(sum(length(body)), 0) FROM journal_bodies").first?[0].intValue ?? -1)
        XCTAssertEqual(try writer.use { try journal.bytes.tenantBytes($0) }, rowBytes, "each tenant's rows' bytes, as in the file")
        XCTAssertEqual(try writer.use { try journal.bytes.bytes($0) }, rowBytes.values.reduce(0, +) + bodyBytes, "the file's journal bytes")
    }

    /// A recording placed only after its entry's commit (`--durability strict` with `--record`)
    /// amends the entry's `filePath`: to null when it failed (with a `problem`), to where it went
    /// when that was `<planned>/index` (tester finding tester28c-F1, no `problem`). Retention's
    /// byte count follows each change exactly, whole and per tenant: it counts `file_path`, and
    /// a deleted row releases the bytes it holds then (a cleared path was counted for good before).
    func testAnAmendmentChangesTheFilePathAndTheByteCountFollows() throws {
        let (writer, reader, _, removeAll) = try database()
        defer { removeAll() }
        let journal = JournalWriter(database: writer, bodyLimit: 4096, log: Logger(level: .error))
        defer { journal.stop() }
        XCTAssertTrue(try writer.use { try journal.bytes.catchUp($0) }, "an empty file is read at once")
        let moved = journal.append(entry("/t/x", filePath: "/mocks/t/x"))
        let failed = journal.append(entry("/t/y", filePath: "/mocks/t/y"))
        let kept = journal.append(entry("/t/z", problem: "its own", filePath: "/mocks/t/z"))
        journal.flush()
        journal.amend(moved, problem: nil, filePath: .replaced("/mocks/t/x/index"))
        journal.amend(failed, problem: "not recorded: cannot write", filePath: .cleared)
        journal.amend(kept, problem: nil)  // changes nothing: not even queued
        journal.flush()

        let rows = try reader.query("SELECT url, ifnull(file_path, 'NULL'), ifnull(problem, 'NULL') FROM journal_rows ORDER BY id")
            .map { row in (0..<3).map { row[$0].stringValue ?? "" } }
        XCTAssertEqual(
            rows,
            [["/t/x", "/mocks/t/x/index", "NULL"], ["/t/y", "NULL", "not recorded: cannot write"], ["/t/z", "/mocks/t/z", "its own"]])
        let fileBytes = Int(try reader.query("SELECT sum(\(JournalBytes.rowBytes(""))) FROM journal_rows").first?[0].intValue ?? -1)
        let bodyBytes = Int(try reader.query("SELECT ifnull(sum(length(body)), 0) FROM journal_bodies").first?[0].intValue ?? -1)
        XCTAssertEqual(try writer.use { try journal.bytes.tenantBytes($0) }, [TenantID("t"): fileBytes], "the tenant's rows, as stored")
        XCTAssertEqual(try writer.use { try journal.bytes.bytes($0) }, fileBytes + bodyBytes, "the file's journal bytes")
        XCTAssertEqual(journal.statistics().droppedAmendments, 0)
    }

    /// Regression: an amendment whose write failed three times (another connection holding the
    /// file's write lock past the writer's 5-s busy timeout, each time) was dropped; since then
    /// counted (`droppedAmendments`) but still lost. A busy file passes (T16-F1): the writer now
    /// keeps the round, reports the failure (``JournalWriter/failure``, health's reason) and
    /// writes it once the lock is let go; nothing is dropped. The writer's busy timeout is cut
    /// to 100 ms here, so its rounds fail quickly.
    func testAnAmendmentHeldUpByABusyFileIsWrittenOnceTheLockIsGone() throws {
        let (writer, reader, path, removeAll) = try database()
        defer { removeAll() }
        try writer.use { try $0.execute("PRAGMA busy_timeout = 100") }
        let journal = JournalWriter(database: writer, bodyLimit: 4096, log: Logger(level: .error))
        defer { journal.stop() }
        let ticket = journal.append(entry("/a"))
        journal.flush()
        let before = journal.statistics()

        let holder = try Database(path: path)
        defer { holder.close() }
        try holder.execute("BEGIN IMMEDIATE")
        journal.amend(ticket, problem: "cut short")
        let deadline = Date(timeIntervalSinceNow: 10)
        while journal.failure == nil && Date() < deadline { usleep(10_000) }
        let failure = try XCTUnwrap(journal.failure, "the failing writer says so")
        XCTAssertTrue(failure.reason.contains("busy"), failure.reason)
        usleep(300_000)  // more failed rounds
        XCTAssertEqual(journal.statistics().droppedAmendments, before.droppedAmendments, "nothing is dropped while the file is busy")
        try holder.execute("ROLLBACK")
        journal.flush()  // returns once the round is written

        let after = journal.statistics()
        XCTAssertNil(journal.failure, "a commit ends the failure")
        XCTAssertEqual(after.droppedAmendments, before.droppedAmendments, "the amendment is not dropped")
        XCTAssertEqual(after.droppedRows, before.droppedRows, "no row was dropped")
        XCTAssertEqual(try reader.query("SELECT problem FROM journal_rows").map { $0[0] }, [.text("cut short")], "the row is amended")
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
