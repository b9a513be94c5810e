import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// try6b finding 1: tenant B read tenant A's journal-clear point with
/// `SELECT catbird_journal_floor('A')` (the function behind the `requests` view took any id), and
/// `PRAGMA page_count` / `freelist_count` / `data_version` showed every tenant's write volume
/// (docs/protocol.md#sql, docs/tenancy.md#isolation).
final class SQLBeyondTenantTests: XCTestCase {
    func testAnotherTenantsJournalFloorAndWholeFilePragmasAreRefused() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        // Tenant A: some traffic, then clears its journal.
        for index in 0..<20 { _ = try client.request("GET", "/whatever/\(index)", headers: [("X-Catbird-Parallel-Id", "A")]) }
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: [("X-Catbird-Parallel-Id", "A")]).status, 200)
        _ = try client.request("GET", "/b", headers: [("X-Catbird-Parallel-Id", "B")])

        let floor = try E2E.sql(client, "SELECT catbird_journal_floor('A'), catbird_tenant()", tenant: "B")
        XCTAssertEqual(floor.status, 400, floor.text)
        XCTAssertEqual(
            floor.object["reason"] as? String,
            "catbird_journal_floor() is not available to tenant-scoped queries: it reports on the database every tenant shares, or on another tenant")
        XCTAssertEqual(try E2E.sql(client, "SELECT catbird_journal_floor(catbird_tenant())", tenant: "B").status, 400)
        // tester48b-F5(c): with no argument (or two) it was SQLite's raw "wrong number of
        // arguments"; it is the same refusal, for the default tenant's caller too.
        for (sql, tenant) in [("select catbird_journal_floor()", "B"), ("select catbird_journal_floor()", nil),
                              ("SELECT catbird_journal_floor('A', 'B')", "B")] {
            let refused = try E2E.sql(client, sql, tenant: tenant)
            XCTAssertEqual(refused.status, 400, refused.text)
            XCTAssertEqual(
                refused.object["reason"] as? String,
                "catbird_journal_floor() is not available to tenant-scoped queries: it reports on the database every tenant shares, or on another tenant",
                sql)
        }
        XCTAssertEqual(try E2E.sql(client, "SELECT count(*) FROM requests", tenant: "B").status, 200, "the view behind it still reads")
        for pragma in ["page_count", "freelist_count", "data_version"] {
            for sql in ["PRAGMA \(pragma)", "SELECT * FROM pragma_\(pragma)", "PRAGMA main.\(pragma)"] {
                let answer = try E2E.sql(client, sql, tenant: "B")
                XCTAssertEqual(answer.status, 400, "\(sql): \(answer.text)")
                XCTAssertEqual(
                    answer.object["reason"] as? String,
                    "the pragma \(pragma) is not available to tenant-scoped queries: it reports on the database every tenant shares, "
                        + "or on another tenant", sql)
            }
        }
        // The view that calls the function still works, and other reporting pragmas too.
        XCTAssertEqual(try E2E.sqlRows(client, "SELECT url FROM requests", tenant: "B").map { $0[0] as? String }, ["/b"])
        XCTAssertEqual(try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: "A").first?.first as? Int, 0)
        XCTAssertEqual(try E2E.sqlRows(client, "PRAGMA page_size", tenant: "B").count, 1)
    }
}
