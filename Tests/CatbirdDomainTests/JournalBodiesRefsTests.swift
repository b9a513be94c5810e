@testable import CatbirdDomain
import CatbirdStorage
import XCTest

/// A repeated body's references (`JournalBodies`; migrations/0010; docs/schema.md#tables): a
/// batch's rows that point at one body are counted by one statement, and `refs` is always the
/// number of rows pointing at it, also when the body was deleted since the writer stored it (its
/// last row went) and is met again by several rows of one batch.
final class JournalBodiesRefsTests: XCTestCase {
    private let body = Array(String(repeating: "answer ", count: 50).utf8)

    private func entry(_ url: String) -> JournalEntry {
        JournalEntry(
            time: "2026-12-01T10:00:00.000Z", tenant: .defaultTenant, method: "GET", url: url, requestHeaders: "{}",
            requestBody: [], status: 200, responseHeaders: "{}", responseBody: body, answeredBy: .mock,
            mockHit: nil, durationMs: 0.1)
    }

    /// Writes `count` rows in one transaction; returns their `response_body_id`s and every stored
    /// body's (id, refs, rows pointing at it).
    private func write(_ count: Int, _ db: Database, _ bodies: inout JournalBodies) throws -> (ids: [SQLiteValue], stored: [[SQLiteValue]]) {
        let before = try db.query("SELECT coalesce(max(id), 0) FROM journal_rows").first?[0] ?? .integer(0)
        _ = try db.transaction { try JournalRecords.insert((0..<count).map { entry("/r/\($0)") }, into: db, bodies: &bodies) }
        let ids = try db.query("SELECT response_body_id FROM journal_rows WHERE id > ? ORDER BY id", [before]).map { $0[0] }
        let stored = try db.query(
            "SELECT b.id, b.refs, (SELECT count(*) FROM journal_rows r WHERE r.response_body_id = b.id) FROM journal_bodies b ORDER BY b.id")
            .map(\.values)
        let read = try db.query("SELECT response_body FROM requests").map { $0[0] }
        XCTAssertEqual(read, [SQLiteValue](repeating: .blob(body), count: read.count), "every row reads the body sent")
        return (ids, stored)
    }

    func testRefsCountThePointingRowsAlsoAfterTheBodyWasDeleted() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()

        var batch = try write(3, db, &bodies)
        XCTAssertEqual(batch.ids.first, .null, "the first row holds its body")
        let first = try XCTUnwrap(batch.stored.first?.first)
        XCTAssertEqual(batch.ids.dropFirst(), [first, first])
        XCTAssertEqual(batch.stored, [[first, .integer(2), .integer(2)]])

        batch = try write(2, db, &bodies)
        XCTAssertEqual(batch.ids, [first, first])
        XCTAssertEqual(batch.stored, [[first, .integer(4), .integer(4)]])

        // Every row pointing at it goes (a journal clear): the trigger deletes the body.
        try db.run("DELETE FROM journal_rows WHERE response_body_id IS NOT NULL")
        XCTAssertEqual(try db.query("SELECT count(*) FROM journal_bodies").first?[0], .integer(0))

        // Met again by three rows of one batch: the first holds it, the other two point at it stored anew.
        batch = try write(3, db, &bodies)
        XCTAssertEqual(batch.ids.first, .null)
        let second = try XCTUnwrap(batch.stored.first?.first)
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(batch.ids.dropFirst(), [second, second])
        XCTAssertEqual(batch.stored, [[second, .integer(2), .integer(2)]])

        batch = try write(1, db, &bodies)
        XCTAssertEqual(batch.ids, [second])
        XCTAssertEqual(batch.stored, [[second, .integer(3), .integer(3)]])
    }
}
