import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Regression (tester finding tester50a-F3), the exact case: a mock with `limit` 3 used up by
/// three hits, then an `update` of its pattern answering `new` (201), then `kill -9` before the
/// journal writer committed the hits: the file held the used-up mock's row (`old`, position 1,
/// `remaining_limit` 3, `hits` 0) beside the new one (position 2), and after the restart `/u`
/// answered `old` three times before `new`, `GET /catbird/api/mocks` listing both. The crash's
/// timing is a few milliseconds wide, so the file is left as it left it: the old row written
/// back while the server is stopped.
final class SupersededMockRowTests: XCTestCase {
    func testAUsedUpMocksRowLeftByACrashYieldsToTheUpdateOfItsPattern() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        let tenant = "uu"
        try E2E.addMock(client, tenant: tenant, url: "/u", body: "old", limit: 3)
        for _ in 1...3 { XCTAssertEqual(try client.request("GET", "/u", headers: E2E.tenantHeader(tenant)).text, "old") }
        try E2E.addMock(client, tenant: tenant, url: "/u", body: "new")

        try server.restart { db in
            try db.run("""
                INSERT INTO mock_rows (id, tenant, position, method, url_kind, url_value, header_patterns, status, response_headers,
                                       response_body, remaining_limit, delay_seconds, hits, created_at)
                VALUES (1, 'uu', 1, 'GET', 'equal', '/u', '{}', 200, '{}', CAST('old' AS BLOB), 3, NULL, 0, '2026-12-06T18:00:00.000Z')
                """)
            XCTAssertEqual(try db.query("SELECT count(*) AS n FROM mock_rows WHERE tenant = 'uu'").first?["n"].intValue, 2)
        }
        client = try server.client()
        for _ in 1...4 {
            let answer = try client.request("GET", "/u", headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(answer.text, "new")
        }
        let listed = try E2E.mocks(client, tenant: tenant)
        XCTAssertEqual(listed.count, 1, "\(listed)")
        XCTAssertNotEqual(JSONNumber.int(listed.first?["id"]), 1)
        let rows = try E2E.sqlRows(client, "SELECT count(*) FROM mocks", tenant: tenant)
        XCTAssertEqual(JSONNumber.int(rows.first?.first), 1, "the superseded row is deleted, not only hidden")
    }
}
