import CatbirdTestSupport
import Foundation
import XCTest

/// The repository keeps a copy of the Catbird 0.11 client captures (Tests/Fixtures) so that a
/// clone anywhere can replay them; this keeps the copy identical to `../shared`, where they are
/// maintained, whenever that folder is present (developer machines and CI).
final class FixtureCopyTests: XCTestCase {
    func testRepositoryCopyMatchesSharedFixtures() throws {
        let manager = FileManager.default
        guard manager.fileExists(atPath: Fixtures.sharedDirectory.path) else {
            throw XCTSkip("no ../shared beside the package: nothing to compare the copy with")
        }
        let shared = try manager.contentsOfDirectory(atPath: Fixtures.sharedDirectory.path).sorted()
        let copy = try manager.contentsOfDirectory(atPath: Fixtures.directory.path).sorted()
        XCTAssertEqual(copy, shared, "Tests/Fixtures/catbird-client-0.11 lists other files than ../shared")
        for name in shared {
            let original = try Data(contentsOf: Fixtures.sharedDirectory.appendingPathComponent(name))
            let copied = try Data(contentsOf: Fixtures.directory.appendingPathComponent(name))
            XCTAssertEqual(copied, original, "\(name) differs from ../shared; copy it again")
        }
    }
}
