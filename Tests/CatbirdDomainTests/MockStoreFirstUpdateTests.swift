@testable import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// A tenant's first `update` makes its mock table only once the mock is stored: refused by the
/// tenant's limits, or failing to write, it leaves no empty table behind, which the search of
/// other tenants' mocks for every default-tenant 404 would otherwise pass over (review finding;
/// ``MatchingTenantsEmptyTableTests`` shows such a table does not change the answer).
final class MockStoreFirstUpdateTests: StorageTestCase {
    private let pattern = RequestPattern(method: .GET, url: .equal("/first"))

    func testARefusedOrFailedFirstUpdateLeavesNoTable() throws {
        let refusing = try mockStore(limits: TenantMockLimits(maxMocks: 0))
        XCTAssertThrowsError(try refusing.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("refused"))) {
            XCTAssertTrue($0 is TenantMockLimitError, "\($0)")
        }
        XCTAssertNil(refusing.table(of: TenantID("refused")), "refused: no table made")

        let mocks = try mockStore()
        // The write made to fail by a trigger on the file, added through a second connection.
        let other = try Database(path: databasePath(), mode: .readWrite)
        try other.run(
            "CREATE TRIGGER refuse_first BEFORE INSERT ON mock_rows WHEN NEW.tenant = 'failed' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        other.close()
        XCTAssertThrowsError(try mocks.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("failed")))
        XCTAssertNil(mocks.table(of: TenantID("failed")), "the write failed: no table made")

        let stored = try mocks.update(pattern, response: ResponseMock(status: 200), tenant: TenantID("stored"))
        XCTAssertEqual(mocks.mocks(of: TenantID("stored")).map(\.id), [stored.id], "a stored first mock makes the table")
        XCTAssertEqual(stored.position, 1)
    }
}
