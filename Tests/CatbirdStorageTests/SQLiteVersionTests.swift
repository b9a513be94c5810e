@testable import CatbirdStorage
import XCTest

/// Reviewer finding (mend14c 4): the journal's amendments use `UPDATE … RETURNING` (SQLite
/// 3.35) while docs/schema.md named 3.31 as the minimum and nothing checked the linked
/// library, so a server on 3.31-3.34 would start and fail at its first answer cut short. The
/// server now refuses to start on a library older than 3.35, saying which it has.
final class SQLiteVersionTests: XCTestCase {
    func testALibraryOlderThan3Point35IsRefusedNamingItsVersion() {
        XCTAssertThrowsError(try SQLiteVersion.check(linked: 3_034_001, version: "3.34.1")) { error in
            XCTAssertEqual(
                "\(error)",
                "the SQLite library linked is 3.34.1, but Catbird needs 3.35 or later (UPDATE … RETURNING); "
                    + "install a newer libsqlite3 (Debian 12 has 3.40)")
        }
        XCTAssertNoThrow(try SQLiteVersion.check(linked: 3_035_000, version: "3.35.0"))
        XCTAssertNoThrow(try SQLiteVersion.check(), "the library this build links")
    }
}
