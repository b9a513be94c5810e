import CatbirdTestSupport
import Foundation
import XCTest

/// `POST /catbird/api/sql` (docs/protocol.md#sql): read-only, bound parameters, row cap, time limit, and
/// the public table and column names.
final class SQLRouteTests: XCTestCase {
    private static let injection = "x'; DROP TABLE requests; --"

    func testSelectWithBoundParameters() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "p", url: "/p/ok", body: "ok")
        try E2E.addMock(client, tenant: "q", url: "/q/ok", body: "ok")
        _ = try client.request("GET", "/p/ok", headers: E2E.tenantHeader("p"))
        _ = try client.request("GET", "/p/missing", headers: E2E.tenantHeader("p"))
        _ = try client.request("GET", "/q/ok", headers: E2E.tenantHeader("q"))

        let answer = try client.json(
            "POST", "/catbird/api/sql", #"{"sql":"SELECT url FROM requests WHERE tenant = ? AND status = ?","params":["p",200]}"#,
            headers: E2E.tenantHeader("p"))
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(answer.object["columns"] as? [String], ["url"])
        XCTAssertEqual(answer.object["rows"] as? [[String]], [["/p/ok"]])
        XCTAssertEqual(answer.object["truncated"] as? Bool, false)

        XCTAssertEqual(
            try E2E.sqlRows(client, "SELECT url FROM requests WHERE tenant = ? AND status = ? ORDER BY id", params: ["p", 404], tenant: "p")
                .map { $0.first as? String },
            ["/p/missing"])
        // null, boolean, real and text parameters.
        let mixed = try E2E.sqlRows(client, "SELECT ? IS NULL, ?, ? * 2, typeof(?)", params: [NSNull(), true, 1.25, "text"])
        XCTAssertEqual(mixed.count, 1)
        XCTAssertEqual(JSONNumber.int(mixed.first?[0]), 1)
        XCTAssertEqual(JSONNumber.int(mixed.first?[1]), 1)
        XCTAssertEqual(JSONNumber.double(mixed.first?[2]), 2.5)
        XCTAssertEqual(mixed.first?[3] as? String, "text")

        E2E.assertError(try E2E.sql(client, "SELECT url FROM requests WHERE tenant = ?", params: []), status: 400)
        E2E.assertError(try E2E.sql(client, "SELECT url FROM no_such_table"), status: 400, reasonContains: "no_such_table")
    }

    func testAnInjectionAttemptInAParameterIsTreatedLiterally() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/plain", headers: E2E.tenantHeader("p"))
        _ = try client.request("GET", "/tricky", headers: E2E.tenantHeader(Self.injection))

        let byPlain = try E2E.sqlRows(
            client, "SELECT url FROM requests WHERE tenant = ? AND status = ?", params: [Self.injection, 200], tenant: Self.injection)
        XCTAssertEqual(byPlain.count, 0)
        let literal = try E2E.sqlRows(
            client, "SELECT url, tenant FROM requests WHERE tenant = ?", params: [Self.injection], tenant: Self.injection)
        XCTAssertEqual(literal.map { $0.compactMap { $0 as? String } }, [["/tricky", Self.injection]])
        for tenant in ["p", Self.injection] {
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT COUNT(*) FROM requests", tenant: tenant).first?.first), 1, "nothing was dropped")
        }

        // Statements that write, or more than one statement, are refused and change nothing.
        E2E.assertError(try E2E.sql(client, "DROP TABLE requests"), status: 400)
        E2E.assertError(try E2E.sql(client, "DELETE FROM requests"), status: 400)
        E2E.assertError(try E2E.sql(client, "SELECT 1; DROP TABLE requests"), status: 400)
        for tenant in ["p", Self.injection] {
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT COUNT(*) FROM requests", tenant: tenant).first?.first), 1)
        }
        XCTAssertEqual(try E2E.journal(client, tenant: Self.injection).compactMap { $0["url"] as? String }, ["/tricky"])
        XCTAssertEqual(try E2E.journal(client, tenant: "p").compactMap { $0["url"] as? String }, ["/plain"])
    }

    func testMaxRowsCapsTheAnswerAndSetsTruncated() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<30 { _ = try client.request("GET", "/row/\(index)") }

        let capped = try E2E.sql(client, "SELECT url FROM requests ORDER BY id", maxRows: 10)
        XCTAssertEqual(capped.status, 200, capped.text)
        XCTAssertEqual((capped.object["rows"] as? [[String]])?.map { $0.first }, (0..<10).map { "/row/\($0)" })
        XCTAssertEqual(capped.object["truncated"] as? Bool, true)

        let exact = try E2E.sql(client, "SELECT url FROM requests ORDER BY id", maxRows: 30)
        XCTAssertEqual((exact.object["rows"] as? [Any])?.count, 30)
        XCTAssertEqual(exact.object["truncated"] as? Bool, false)

        let defaulted = try E2E.sql(client, "SELECT url FROM requests ORDER BY id")
        XCTAssertEqual((defaulted.object["rows"] as? [Any])?.count, 30)
        XCTAssertEqual(defaulted.object["truncated"] as? Bool, false)

        E2E.assertError(try E2E.sql(client, "SELECT 1", maxRows: 0), status: 400, reasonContains: "maxRows")
        E2E.assertError(try E2E.sql(client, "SELECT 1", maxRows: 10_001), status: 400, reasonContains: "maxRows")
    }

    func testBlobColumnsComeBackAsBase64() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, method: "POST", url: "/binary", body: "ok")
        let bytes: [UInt8] = [0x00, 0xFF, 0x10, 0x80, 0x7F, 0xC3, 0x28]
        XCTAssertEqual(try client.request("POST", "/binary", body: bytes).status, 200)

        let answer = try E2E.sql(client, "SELECT request_body, response_body, typeof(request_body) FROM requests")
        XCTAssertEqual(answer.status, 200, answer.text)
        let row = (answer.object["rows"] as? [[Any]])?.first ?? []
        XCTAssertEqual(row.count, 3)
        XCTAssertEqual((row.first as? [String: Any])?["base64"] as? String, Data(bytes).base64EncodedString())
        XCTAssertEqual((row.dropFirst().first as? [String: Any])?["base64"] as? String, Data("ok".utf8).base64EncodedString())
        XCTAssertEqual(row.last as? String, "blob")
        XCTAssertEqual(
            (try E2E.sqlRows(client, "SELECT x'00ff'").first?.first as? [String: Any])?["base64"] as? String, "AP8=")
        // The journal route hands the same bytes back as base64 and no text (not UTF-8).
        let request = try E2E.journal(client, tenant: nil).first?["request"] as? [String: Any]
        XCTAssertEqual(request?["bodyBase64"] as? String, Data(bytes).base64EncodedString())
        XCTAssertTrue(E2E.isNull(request?["body"]))
    }

    func testASlowQueryIsStoppedAtTheTimeLimit() throws {
        let server = try TestServer { $0.sqlTimeLimit = .milliseconds(200) }
        defer { server.removeFiles() }
        let client = try server.client()

        let slow = try E2E.sql(
            client, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT COUNT(*) FROM c")
        E2E.assertError(slow, status: 400, reasonContains: "time")

        // The connection and the server are fine afterwards.
        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT 40 + 2").first?.first), 42)
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
    }

    func testThePublicSchemaNamesAreQueryable() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/schema", body: "s")
        _ = try client.request("GET", "/schema")
        _ = try client.request("GET", "/schema", headers: E2E.tenantHeader("named"))

        let columns = ["id", "time", "tenant", "method", "url", "status", "answered_by", "mock_id", "duration_ms"]
        let answer = try E2E.sql(client, "SELECT \(columns.joined(separator: ", ")) FROM requests WHERE tenant = '' ORDER BY id")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.object["columns"] as? [String], columns)
        let rows = answer.object["rows"] as? [[Any]] ?? []
        XCTAssertEqual(rows.count, 1, "only the request without a header is in the default tenant ''")
        let row = rows.first ?? []
        XCTAssertEqual(row.count, columns.count)
        guard row.count == columns.count else { return }
        let mockID = JSONNumber.int(try E2E.sqlRows(client, "SELECT id FROM mocks WHERE tenant = '' AND url_value = '/schema'").first?.first)
        XCTAssertNotNil(mockID)
        XCTAssertNotNil(JSONNumber.int(row[0]))
        XCTAssertTrue(E2E.matches(row[1] as? String ?? "", E2E.timePattern), "\(row[1])")
        XCTAssertEqual(row[2] as? String, "")
        XCTAssertEqual(row[3] as? String, "GET")
        XCTAssertEqual(row[4] as? String, "/schema")
        XCTAssertEqual(JSONNumber.int(row[5]), 200)
        XCTAssertEqual(row[6] as? String, "mock")
        XCTAssertEqual(JSONNumber.int(row[7]), mockID)
        XCTAssertGreaterThanOrEqual(JSONNumber.double(row[8]) ?? -1, 0)

        // Each tenant sees its own rows only (see SQLTenantScopeTests).
        for tenant in ["", "named"] {
            let header = tenant.isEmpty ? nil : tenant
            XCTAssertEqual(
                try E2E.sqlRows(client, "SELECT tenant FROM requests ORDER BY id", tenant: header).map { $0.first as? String }, [tenant])
            XCTAssertEqual(try E2E.sqlRows(client, "SELECT id FROM tenants ORDER BY id", tenant: header).map { $0.first as? String }, [tenant])
        }
        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT COUNT(*) FROM mocks").first?.first), 1)
        XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT COUNT(*) FROM mocks", tenant: "named").first?.first), 0)
        XCTAssertEqual(
            JSONNumber.int(try E2E.sqlRows(client, "SELECT mock_id FROM requests", tenant: "named").first?.first), mockID,
            "the named tenant was answered by the default tenant's mock")
    }

    /// JSON has no infinity, but a read-only SELECT can yield one (`1e999`, an overflowing
    /// product). That is the user's query, not a server fault: a 200 (with some representation)
    /// or a 400 that says why, never a 5xx.
    func testAnInfiniteRealIsNotAServerError() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for query in ["SELECT 1e999", "SELECT -1e308 * 10"] {
            let answer = try E2E.sql(client, query)
            XCTAssertLessThan(answer.status, 500, "\(query): \(answer.status) \(answer.text)")
            if answer.status == 200 {
                XCTAssertEqual((answer.object["rows"] as? [[Any]])?.first?.count, 1, query)
            } else {
                E2E.assertError(answer, status: 400)
            }
        }
    }
}
