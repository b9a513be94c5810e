import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `sql(_:params:maxRows:)`: read-only SQL over the caller's tenant's rows.
final class SQLTests: CatbirdTestCase {
    func testSQLSeesOneTenant() throws {
        let scenario = try TwoTenants()
        let p = try scenario.p.sql("SELECT tenant, url, status FROM requests ORDER BY id")
        XCTAssertEqual(p.columns, ["tenant", "url", "status"])
        XCTAssertEqual(p.rows, [
            [.text(TwoTenants.pId), "/api/feed", 200],
            [.text(TwoTenants.pId), "/api/createPost", 201],
            [.text(TwoTenants.pId), "/missing?x=1", 404],
        ])
        XCTAssertFalse(p.truncated)
        XCTAssertEqual(try scenario.q.sql("SELECT url FROM requests").column("url"), ["/api/feed", "/api/feed"])
        XCTAssertEqual(try scenario.q.sql("SELECT COUNT(*) AS n FROM mocks").column("n"), [1])
        XCTAssertEqual(try scenario.admin.sql("SELECT url FROM requests").column("url"), ["/api/shared"])
        XCTAssertEqual(try scenario.p.sql("SELECT id FROM tenants").column("id"), [.text(TwoTenants.pId)])
    }

    func testSQLSeesOneTenantAsync() async throws {
        let scenario = try TwoTenants()
        let p = try await scenario.p.sql("SELECT DISTINCT tenant FROM requests")
        let q = try await scenario.q.sql("SELECT tenant, COUNT(*) FROM requests GROUP BY tenant")
        XCTAssertEqual(p.rows, [[.text(TwoTenants.pId)]])
        XCTAssertEqual(q.rows, [[.text(TwoTenants.qId), 2]])
        let bound = try await scenario.q.sql("SELECT COUNT(*) FROM requests WHERE url = ? AND status = ?", params: ["/api/feed", 200])
        XCTAssertEqual(bound.rows.first?.first?.intValue, 2)
        await assertCatbirdErrorAsync(400) { try await scenario.q.sql("DELETE FROM requests") }
    }

    func testParamsValueKindsAndLimits() throws {
        let scenario = try TwoTenants()
        let p = scenario.p
        let bound = try p.sql("SELECT url FROM requests WHERE method = ? AND status = ?", params: ["POST", 201])
        XCTAssertEqual(bound.rows, [["/api/createPost"]])
        XCTAssertEqual(try p.sql("SELECT ? IS NULL, ?, ?, ?", params: [nil, true, 2.5, "t"]).rows, [[1, 1, 2.5, "t"]])

        let kinds = try p.sql("SELECT 7 AS i, 2.5 AS r, 'text' AS t, NULL AS n, x'00ff' AS b")
        XCTAssertEqual(kinds.rows, [[.integer(7), .real(2.5), .text("text"), .null, .blob(Data([0x00, 0xFF]))]])
        XCTAssertEqual(kinds.dictionaries.first?["b"]?.dataValue, Data([0x00, 0xFF]))
        XCTAssertEqual(kinds.dictionaries.first?["n"]?.isNull, true)
        XCTAssertEqual(kinds.dictionaries.first?["r"]?.doubleValue, 2.5)
        XCTAssertEqual(kinds.dictionaries.first?["t"]?.stringValue, "text")

        let body = try p.sql("SELECT request_body FROM requests WHERE method = 'POST'")
        XCTAssertEqual(body.rows, [[.blob(Data(TwoTenants.postBody.utf8))]])

        let capped = try p.sql("SELECT id FROM requests", maxRows: 1)
        XCTAssertEqual(capped.rows.count, 1)
        XCTAssertTrue(capped.truncated)

        let write = assertCatbirdError(400, try p.sql("DELETE FROM requests"))
        XCTAssertNotNil(write?.reason)
        assertCatbirdError(400, try p.sql("SELECT * FROM main.requests"))
        assertCatbirdError(400, try p.sql("SELEKT 1"))
        // Refused by the client as a CatbirdError, not a raw EncodingError (tester44c-F5).
        assertCatbirdError(400, try p.sql("SELECT ?", params: [.real(.infinity)]))
        XCTAssertEqual(try p.sql("SELECT COUNT(*) FROM requests").rows, [[3]], "nothing was deleted")
    }
}
