@testable import CatbirdDomain
import CatbirdStorage
import XCTest

/// A url-marked body shorter than 8 bytes (`JournalBodies`, migrations/0010 and 0011;
/// docs/schema.md#response-bodies-stored-once): a 404 body that is mostly its own url marks
/// down to a few bytes, although the body itself is long enough to be shared.
///
/// Regression: the writer's first-look key read the marked body's first and last 8 bytes
/// without a length check, reading before the start of a 2-byte buffer.
final class JournalBodiesShortMarkedTests: XCTestCase {
    func testABodyMarkedDownToTwoBytesIsSharedAndReadsBackWhole() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        let url = "/" + String(repeating: "a", count: 127)
        let body = Array((url + url).utf8)
        XCTAssertEqual(body.count, JournalBodies.minimumSize)
        XCTAssertEqual(JournalBodies.marked(body, url: url), [1, 1])
        let entries = (0..<3).map { _ in
            JournalEntry(
                time: "2026-12-01T10:00:00.000Z", tenant: .defaultTenant, method: "GET", url: url, requestHeaders: "{}",
                requestBody: [], status: 404, responseHeaders: "{}", responseBody: body, answeredBy: .unanswered,
                mockHit: nil, durationMs: 0.1)
        }
        var bodies = JournalBodies()
        _ = try db.transaction { try JournalRecords.insert(entries, into: db, bodies: &bodies) }

        // The first row holds the body; the second and third point at its marked form.
        XCTAssertEqual(
            try db.query("SELECT hex(body), url_marked, refs FROM journal_bodies").map { $0.values },
            [[.text("0101"), .integer(1), .integer(2)]])
        let stored = try db.query("SELECT v.response_body, r.response_body_id IS NULL FROM requests v JOIN journal_rows r USING (id) ORDER BY id")
        XCTAssertEqual(stored.map { $0[0] }, Array(repeating: .blob(body), count: 3), "every row reads the bytes sent")
        XCTAssertEqual(stored.map { $0[1] }, [.integer(1), .integer(0), .integer(0)])
    }
}
