import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/sql` is scoped by the caller's `X-Catbird-Parallel-Id` (docs/protocol.md#sql, docs/tenancy.md#isolation):
/// `requests`, `mocks` and `tenants` show the caller's tenant only, and reads around those
/// views are refused with a reason that says what to write instead.
final class SQLTenantScopeTests: XCTestCase {
    /// Rows each tenant makes: P and Q with their header, the default tenant (nil) without one.
    private let made: [(tenant: String?, mocks: Int, requests: Int)] = [("p", 2, 3), ("q", 1, 2), (nil, 1, 1)]

    /// A server where every tenant of `made` has added its mocks and sent its requests.
    private func populatedServer() throws -> (TestServer, RawHTTPClient) {
        let server = try TestServer()
        let client = try server.client()
        for (tenant, mocks, requests) in made {
            let name = tenant ?? "default"
            for index in 0..<mocks {
                try E2E.addMock(client, tenant: tenant, url: "/\(name)/\(index)", body: "\(name) \(index)")
            }
            for index in 0..<requests {
                _ = try client.request("GET", "/\(name)/\(index)", headers: E2E.tenantHeader(tenant))
            }
        }
        return (server, client)
    }

    /// `POST /catbird/api/sql` as `tenant` (nil: no header).
    private func sql(_ client: RawHTTPClient, _ query: String, tenant: String?, params: [Any] = []) throws -> RawResponse {
        try client.json("POST", "/catbird/api/sql", E2E.jsonText(["sql": query, "params": params]), headers: E2E.tenantHeader(tenant))
    }

    /// The rows of a successful answer (asserts the 200).
    private func rows(
        _ client: RawHTTPClient, _ query: String, tenant: String?, params: [Any] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[Any]] {
        let answer = try sql(client, query, tenant: tenant, params: params)
        XCTAssertEqual(answer.status, 200, "\(query) as \(tenant ?? "default"): \(answer.text)", file: file, line: line)
        return answer.object["rows"] as? [[Any]] ?? []
    }

    private func count(_ client: RawHTTPClient, _ table: String, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws -> Int? {
        JSONNumber.int(try rows(client, "SELECT COUNT(*) FROM \(table)", tenant: tenant, file: file, line: line).first?.first)
    }

    private func strings(_ client: RawHTTPClient, _ query: String, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws -> [String?] {
        try rows(client, query, tenant: tenant, file: file, line: line).map { $0.first as? String }
    }

    func testEachTenantSeesOnlyItsOwnRequestsMocksAndTenant() throws {
        let (server, client) = try populatedServer()
        defer { server.removeFiles() }
        for (tenant, mocks, requests) in made {
            let id = tenant ?? ""
            let label = tenant ?? "(default)"
            XCTAssertEqual(try count(client, "requests", tenant: tenant), requests, label)
            XCTAssertEqual(try strings(client, "SELECT DISTINCT tenant FROM requests", tenant: tenant), [id], label)
            XCTAssertEqual(try count(client, "mocks", tenant: tenant), mocks, label)
            XCTAssertEqual(try strings(client, "SELECT DISTINCT tenant FROM mocks", tenant: tenant), [id], label)
            XCTAssertEqual(try strings(client, "SELECT id FROM tenants", tenant: tenant), [id], label)
            XCTAssertEqual(try strings(client, "SELECT catbird_tenant()", tenant: tenant), [id], label)
            // Every journaled request of the tenant was answered by one of its own mocks.
            XCTAssertEqual(
                JSONNumber.int(try rows(client, "SELECT COUNT(*) FROM requests r JOIN mocks m ON m.id = r.mock_id", tenant: tenant).first?.first),
                min(mocks, requests), label)
        }
        // Asking for another tenant's rows by value finds nothing either.
        XCTAssertEqual(try rows(client, "SELECT url FROM requests WHERE tenant = ?", tenant: "p", params: ["q"]).count, 0)
        XCTAssertEqual(try rows(client, "SELECT id FROM tenants WHERE id <> ?", tenant: nil, params: [""]).count, 0)
        // A tenant with no rows yet sees empty tables.
        XCTAssertEqual(try count(client, "requests", tenant: "nobody-yet"), 0)
        // The server's own routes still see every tenant.
        XCTAssertEqual(Set(try E2E.tenants(client).compactMap { $0["id"] as? String }), ["", "p", "q"])
    }

    func testDirectReadsOfTheTablesAreRefusedWithAClearReason() throws {
        let (server, client) = try populatedServer()
        defer { server.removeFiles() }
        let reason = "main.requests is not available to tenant-scoped queries; read requests, mocks and tenants "
            + "through their unqualified names, which show only the caller's tenant's rows"
        for query in [
            "SELECT * FROM main.requests",
            "SELECT COUNT(*) FROM main.requests",
            "SELECT (SELECT COUNT(*) FROM main.requests)",
            "WITH everyone AS (SELECT * FROM main.requests) SELECT COUNT(*) FROM everyone",
            "WITH requests AS (SELECT * FROM main.requests) SELECT COUNT(*) FROM requests",
        ] {
            for tenant in ["p", nil] {
                let answer = try sql(client, query, tenant: tenant)
                E2E.assertError(answer, status: 400)
                XCTAssertEqual(answer.object["reason"] as? String, reason, query)
            }
        }
        // The tables behind the view requests (migration 0010): every tenant's rows and bodies.
        for (query, table) in [
            ("SELECT body FROM journal_bodies", "main.journal_bodies"),
            ("SELECT COUNT(*) FROM journal_bodies", "journal_bodies"),
            ("SELECT * FROM main.journal_rows", "main.journal_rows"),
            ("SELECT COUNT(*) FROM main.journal_rows", "main.journal_rows"),
            // SQLite reports the CTE's name, requests, as it would the view's.
            ("WITH requests AS (SELECT * FROM main.journal_rows) SELECT * FROM requests", "main.requests"),
            ("SELECT * FROM requests r JOIN journal_bodies b ON b.id = r.rowid", "main.journal_bodies"),
        ] {
            for tenant in ["p", nil] {
                let answer = try sql(client, query, tenant: tenant)
                E2E.assertError(answer, status: 400)
                XCTAssertEqual(
                    answer.object["reason"] as? String,
                    "\(table) is not available to tenant-scoped queries; read requests, mocks and tenants "
                        + "through their unqualified names, which show only the caller's tenant's rows", query)
            }
        }
        E2E.assertError(try sql(client, "SELECT * FROM main.mocks", tenant: "p"), status: 400, reasonContains: "main.mocks is not available")
        E2E.assertError(try sql(client, "SELECT id FROM main.tenants", tenant: "q"), status: 400, reasonContains: "main.tenants is not available")
        // AUTOINCREMENT's bookkeeping holds every tenant's highest id.
        E2E.assertError(try sql(client, "SELECT * FROM sqlite_sequence", tenant: "p"), status: 400, reasonContains: "sqlite_sequence")
        // The views themselves, the schema and the migrations stay readable.
        XCTAssertEqual(try count(client, "temp.requests", tenant: "p"), 3)
        XCTAssertEqual(try rows(client, "SELECT name FROM pragma_table_info('requests')", tenant: "p").count, 23, "the view's columns, the generated near_misses included")
        XCTAssertGreaterThan(try count(client, "schema_migrations", tenant: "p") ?? 0, 0)
        XCTAssertGreaterThan(try count(client, "sqlite_schema", tenant: "p") ?? 0, 0)
    }

    /// Regression: any tenant could read the database file's path on the server with
    /// `SELECT file FROM pragma_database_list`.
    func testTheDatabasePathIsNotToldToAnyTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for (query, tenant) in [
            ("SELECT file FROM pragma_database_list", "p"), ("PRAGMA database_list", "p"),
            ("SELECT group_concat(file) FROM pragma_database_list", nil),
        ] {
            let answer = try sql(client, query, tenant: tenant)
            E2E.assertError(answer, status: 400, reasonContains: "the pragma database_list is not available")
            XCTAssertFalse(answer.text.contains(server.directory.lastPathComponent), "\(query): \(answer.text)")
        }
    }

    /// Regression: every `pragma_*` table function was readable, and SQLite prepares the
    /// function's own `PRAGMA` when the query runs, after the allow-list of pragmas was last
    /// asked. Right after tenant P was dropped (its rows waiting for the background delete,
    /// with no `tenants` row), `SELECT * FROM pragma_foreign_key_check` from tenant Q listed
    /// P's row ids. Only the introspection pragmas' functions answer now.
    func testPragmaFunctionsThatReadEveryTenantsRowsAreRefused() throws {
        let (server, client) = try populatedServer()
        defer { server.removeFiles() }
        let dropped = try client.request("DELETE", "/catbird/api/tenants/p")
        XCTAssertEqual(dropped.status, 204, dropped.text)
        for query in [
            "SELECT * FROM pragma_foreign_key_check", "SELECT * FROM pragma_quick_check",
            "SELECT * FROM PRAGMA_Integrity_Check", "SELECT count(*) FROM main.pragma_foreign_key_check('requests')",
            "SELECT (SELECT 1 FROM pragma_quick_check LIMIT 1)", "PRAGMA foreign_key_check",
        ] {
            let answer = try sql(client, query, tenant: "q")
            E2E.assertError(answer, status: 400, reasonContains: "only read-only statements are allowed")
            XCTAssertFalse(answer.text.contains("rowid") || answer.text.contains("\"rows\""), "\(query): \(answer.text)")
        }
        XCTAssertEqual(try rows(client, "SELECT name FROM pragma_table_info('requests')", tenant: "q").count, 23)
        XCTAssertEqual(try rows(client, "SELECT * FROM pragma_user_version", tenant: "q").count, 1)
    }

    func testHugeValuesAndWritesAreRefused() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let huge = try sql(client, "SELECT randomblob(900000000)", tenant: "p")
        E2E.assertError(huge, status: 400, reasonContains: "limit of 67108864 bytes (64 MiB)")
        E2E.assertError(try sql(client, "DELETE FROM main.requests", tenant: "p"), status: 400, reasonContains: "read-only")
        E2E.assertError(try sql(client, "DROP VIEW requests", tenant: "p"), status: 400, reasonContains: "read-only")
        // The reader is fine afterwards.
        XCTAssertEqual(try strings(client, "SELECT catbird_tenant()", tenant: "p"), ["p"])
    }
}
