@testable import CatbirdDomain
import CatbirdStorage
import XCTest

/// 404s of ever new urls (`JournalBodies`; migrations/0010 and 0011; docs/schema.md#tables): a
/// tenant's last url-marked body is tried first, piece by piece, so a 404 that differs from it
/// only in its url points at it without its body being searched for the url. Every row reads
/// back the exact bytes sent, whichever body it points at.
final class JournalBodiesOfNewURLsTests: XCTestCase {
    private let padding = String(repeating: "p", count: 300)

    /// A 404-like body that names `url` twice and `other` once (unmarked when `other` is not the row's url).
    private func body(_ url: String, other: String = "/elsewhere", tail: String = "") -> [UInt8] {
        Array(#"{"reason":"no mock matched GET \#(url)","actual":"\#(url)","other":"\#(other)","p":"\#(padding)\#(tail)"}"#.utf8)
    }

    private func entry(_ url: String, _ body: [UInt8], tenant: TenantID = .defaultTenant) -> JournalEntry {
        JournalEntry(
            time: "2026-12-01T10:00:00.000Z", tenant: tenant, method: "GET", url: url, requestHeaders: "{}",
            requestBody: [], status: 404, responseHeaders: "{}", responseBody: body, answeredBy: .unanswered,
            mockHit: nil, durationMs: 0.1)
    }

    /// Writes `entries` in one transaction and returns every row's (response body as read through
    /// `requests`, its `response_body_id`).
    private func write(_ entries: [JournalEntry], _ db: Database, _ bodies: inout JournalBodies) throws -> [(SQLiteValue, SQLiteValue)] {
        _ = try db.transaction { try JournalRecords.insert(entries, into: db, bodies: &bodies) }
        return try db.query("SELECT v.response_body, r.response_body_id FROM requests v JOIN journal_rows r USING (id) ORDER BY id")
            .map { ($0[0], $0[1]) }
    }

    func testNewURLsShareTheMarkedBodyAndReadBackTheirOwnBytes() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()
        let urls = ["/miss/abcdefg", "/miss/qwertyu", "/miss/x", "/miss/a-much-longer-url?with=query"]
        let sent = urls.map { body($0) }
        let rows = try write(zip(urls, sent).map { entry($0, $1) }, db, &bodies)

        XCTAssertEqual(rows.map(\.0), sent.map { .blob($0) }, "every row reads the bytes sent")
        // The first row holds its body; the others point at its marked form, stored once.
        XCTAssertEqual(rows.map { $0.1 == .null }, [true, false, false, false])
        XCTAssertEqual(
            try db.query("SELECT body, url_marked, refs FROM journal_bodies").map(\.values),
            [[.blob(JournalBodies.marked(sent[0], url: urls[0])!), .integer(1), .integer(3)]])
    }

    /// 404s of new urls whose closest mocks alternate between more sets than the few bodies
    /// tried first (``JournalBodies/recentMarked``): each set's body is stored once, however
    /// it was found, and every row reads back its own bytes.
    func testAlternatingBodiesAreEachStoredOnce() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()
        let sets = JournalBodies.recentMarked + 2
        let entries = (0..<(sets * 3)).map { index in
            let url = "/miss/\(index)"
            return entry(url, body(url, tail: String(repeating: "s", count: index % sets)))
        }
        let rows = try write(entries, db, &bodies)
        XCTAssertEqual(rows.map(\.0), entries.map { .blob($0.responseBody) })
        XCTAssertEqual(rows.map { $0.1 == .null }, (0..<(sets * 3)).map { $0 < sets }, "each set's first row holds its body")
        XCTAssertEqual(
            try db.query("SELECT count(*), sum(refs), sum(url_marked) FROM journal_bodies").first?.values,
            [.integer(Int64(sets)), .integer(Int64(sets * 2)), .integer(Int64(sets))])
    }

    /// The marked body's own bytes hold the next row's url unmarked (`other`): that row still
    /// points at it (the url put back gives its body), and reads back exactly.
    func testAURLTheMarkedBodyHoldsUnmarkedReadsBackExactly() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()
        let first = body("/miss/one", other: "/miss/two")
        let second = body("/miss/two", other: "/miss/two")
        let rows = try write([entry("/miss/one", first), entry("/miss/two", second)], db, &bodies)
        XCTAssertEqual(rows.map(\.0), [.blob(first), .blob(second)])
        XCTAssertEqual(rows.map { $0.1 == .null }, [true, false])
        XCTAssertEqual(try db.query("SELECT refs FROM journal_bodies").map { $0[0] }, [.integer(1)])
    }

    /// Bodies that differ from the last marked body elsewhere than in their url (one byte, the
    /// length, another tenant's) are not pointed at it, and each reads back its own bytes.
    func testBodiesThatDifferElsewhereAreNotShared() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()
        var oneByte = body("/miss/b")
        oneByte[oneByte.count - 3] = UInt8(ascii: "q")
        let entries = [
            entry("/miss/a", body("/miss/a")), entry("/miss/b", oneByte), entry("/miss/c", body("/miss/c", tail: "z")),
            entry("/miss/d", body("/miss/d"), tenant: TenantID("other")),
        ]
        let rows = try write(entries, db, &bodies)
        XCTAssertEqual(rows.map(\.0), entries.map { .blob($0.responseBody) })
        XCTAssertEqual(rows.map { $0.1 == .null }, [true, true, true, true], "each differs from every body seen before")
        XCTAssertEqual(try db.query("SELECT count(*) FROM journal_bodies").first?[0], .integer(0))
    }

    /// After a failed write (``JournalBodies/removeAll()``) the last marked body is forgotten
    /// with the rest: the next 404 holds its body again instead of pointing at a rolled-back id.
    func testForgottenAfterRemoveAll() throws {
        let db = try Database(path: ":memory:")
        defer { db.close() }
        _ = try Schema.migrate(db)
        var bodies = JournalBodies()
        _ = try write([entry("/miss/a", body("/miss/a")), entry("/miss/b", body("/miss/b"))], db, &bodies)
        bodies.removeAll()
        let rows = try write([entry("/miss/c", body("/miss/c"))], db, &bodies)
        XCTAssertEqual(rows.last?.0, .blob(body("/miss/c")))
        XCTAssertEqual(rows.last?.1, .null, "holds its own body")
    }
}
