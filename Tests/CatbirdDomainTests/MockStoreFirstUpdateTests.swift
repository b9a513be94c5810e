@testable import CatbirdDomain
import CatbirdStorage
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// A tenant's first `update` makes its mock table only once the mock is stored: refused by the
/// tenant's limits, or failing to write, it leaves no empty table behind, which the search of
/// other tenants' mocks for every default-tenant 404 would otherwise pass over (review finding;
/// ``MatchingTenantsEmptyTableTests`` shows such a table does not change the answer).
final class MockStoreFirstUpdateTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-first-update-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var path: String { directory.appendingPathComponent("catbird.sqlite").path }

    private func store(_ limits: TenantMockLimits = TenantMockLimits()) throws -> MockStore {
        let connection = try Database(path: path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        return try MockStore(database: SerialDatabase(connection), limits: limits)
    }

    private let pattern = RequestPattern(method: .GET, url: .equal("/first"))

    func testARefusedOrFailedFirstUpdateLeavesNoTable() throws {
        let refusing = try store(TenantMockLimits(maxMocks: 0))
        XCTAssertThrowsError(try refusing.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("refused"))) {
            XCTAssertTrue($0 is TenantMockLimitError, "\($0)")
        }
        XCTAssertNil(refusing.table(of: TenantID("refused")), "refused: no table made")

        let mocks = try store()
        // The write made to fail by a trigger on the file, added through a second connection.
        let other = try Database(path: path, mode: .readWrite)
        try other.run(
            "CREATE TRIGGER refuse_first BEFORE INSERT ON mocks WHEN NEW.tenant = 'failed' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        other.close()
        XCTAssertThrowsError(try mocks.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("failed")))
        XCTAssertNil(mocks.table(of: TenantID("failed")), "the write failed: no table made")

        let stored = try mocks.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("stored"))
        XCTAssertEqual(mocks.mocks(of: TenantID("stored")).map(\.id), [stored.id], "a stored first mock makes the table")
        XCTAssertEqual(stored.position, 1)
    }
}
