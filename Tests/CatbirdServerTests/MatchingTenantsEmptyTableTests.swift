import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// `matchingTenants` of a default-tenant 404 looks at the first 100 other tenants by id that
/// hold mocks (docs/matching.md#near-misses): a tenant without any takes none of those places.
///
/// Regression: `update` makes a new tenant's table before writing its row; when the write
/// failed, the empty table stayed and took a place, so with 100 tenants holding mocks, a
/// failed first `update` for a tenant whose id sorts first pushed the 100th, whose mock matched,
/// out of the search (`matchingTenants` left out). The write is made to fail here by a trigger
/// on the real file, added through a second connection.
final class MatchingTenantsEmptyTableTests: XCTestCase {
    func testATenantWhoseFirstUpdateFailedDoesNotPushAMatchingTenantOutOfTheSearch() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        for index in 1...100 {
            let last = index == 100
            try E2E.addMock(
                control, tenant: String(format: "t%03d", index), url: last ? "/shared*" : "/other-\(index)", kind: last ? "wildcard" : "equal",
                body: "x")
        }
        let before = try control.request("GET", "/shared-1")
        XCTAssertEqual(before.status, 404, before.text)
        XCTAssertEqual(before.object["matchingTenants"] as? [String], ["t100"], before.text)

        let db = try Database(path: server.databasePath)
        try db.run("CREATE TRIGGER refuse_first BEFORE INSERT ON mock_rows WHEN NEW.tenant = 'a-first' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        db.close()
        let failed = try control.json(
            "POST", "/catbird/api/mocks", E2E.updateAction(url: "/a", body: Array("a".utf8)), headers: E2E.tenantHeader("a-first"))
        XCTAssertGreaterThanOrEqual(failed.status, 500, "the write failed: \(failed.text)")
        XCTAssertEqual(try E2E.mocks(control, tenant: "a-first").count, 0)

        // Another target than before: computed afresh, not a kept answer (docs/matching.md#repeated-misses).
        let after = try control.request("GET", "/shared-2")
        XCTAssertEqual(after.status, 404, after.text)
        XCTAssertEqual(after.object["matchingTenants"] as? [String], ["t100"], after.text)
    }
}
