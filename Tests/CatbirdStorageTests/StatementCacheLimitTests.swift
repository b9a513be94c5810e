@testable import CatbirdStorage
import CatbirdTestSupport
import XCTest

/// The prepared-statement cache of a connection stays bounded (``Database/statementCacheLimit``).
final class StatementCacheLimitTests: StorageTestCase {
    /// Regression (tester finding tester32b-F2): a text with values written into it made a new
    /// cached statement per value, kept for good (a journal page's ids: about 95 KB per tenant
    /// that listed its journal). The cache now empties itself past its limit; statements still
    /// answer, and one still in use stays valid.
    func testTheCacheStaysWithinItsLimitAndStatementsStillAnswer() throws {
        let db = try openMigrated()
        let held = try db.statement("SELECT 41 + 1")
        for value in 0..<(Database.statementCacheLimit * 3) {
            XCTAssertEqual(try db.query("SELECT \(value) + 1").first?[0].intValue, Int64(value + 1))
            XCTAssertLessThanOrEqual(db.statementCache.count, Database.statementCacheLimit)
        }
        XCTAssertTrue(try held.step())
        XCTAssertEqual(held.currentRow.first?.intValue, 42, "a statement dropped from the cache while held still answers")
    }
}
