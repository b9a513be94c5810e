@testable import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import XCTest

/// The pruner's row-limit check reads the journal's id span from the primary key's two ends,
/// not from a scan (docs/operations.md#retention: "checked without counting the table").
final class RetentionRowSpanTests: StorageTestCase {
    /// Regression (tester finding tester31b-F1): `SELECT max(id) - min(id) + 1 FROM journal_rows`
    /// is not read from the ends of an index (SQLite does that for a lone `min()` or `max()`
    /// only): it scanned the whole `requests_by_tenant` index. With a 467,901-row journal well
    /// within every limit, each 2-second pass read its 5,834 pages on the write connection
    /// (85 to 100 ms), and another tenant's mock updates took 81 to 85 ms at each pass.
    func testTheRowSpanIsTwoLookUpsOfThePrimaryKeyAndCountsTheSpan() throws {
        let db = try openMigrated()
        let plan = try db.query("EXPLAIN QUERY PLAN " + Retention.rowSpanSQL).map { $0["detail"].stringValue ?? "?" }
        XCTAssertFalse(plan.contains { $0.hasPrefix("SCAN journal_rows") }, "\(plan)")
        XCTAssertEqual(plan.filter { $0.hasPrefix("SEARCH journal_rows") }.count, 2, "\(plan)")

        XCTAssertEqual(try db.query(Retention.rowSpanSQL).first?[0], .null, "an empty journal")
        try db.run("INSERT INTO tenants (id, created_at, last_activity_at) VALUES ('t', 'x', 'x')")
        for id in [7, 9, 20] {
            try db.run(
                "INSERT INTO journal_rows (id, time, tenant, method, url, status, answered_by, duration_ms) VALUES (?, 'x', 't', 'GET', '/', 200, 'none', 0)",
                [.integer(Int64(id))])
        }
        XCTAssertEqual(try db.query(Retention.rowSpanSQL).first?[0], .integer(14), "ids 7 to 20")
    }
}
