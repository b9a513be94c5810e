import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Start-up with many stored mocks (README.md "Persistent"): each tenant's table is built once
/// from its rows, and the load is logged before it starts.
final class MockLoadAtStartTests: XCTestCase {
    /// Writes `count` mocks of `tenant` straight into the `mocks` table: `GET` equal `/m/<i>` at
    /// position i (1…count), answering `b<i>`.
    private func store(_ count: Int, of tenant: String, in database: Database) throws {
        try database.run(
            "INSERT INTO tenants (id, created_at, last_activity_at) VALUES (?, '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z')",
            [.text(tenant)])
        try database.run("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
            INSERT INTO mocks (tenant, position, method, url_kind, url_value, header_patterns, status, response_headers,
                               response_body, hits, created_at)
            SELECT ?1, i, 'GET', 'equal', '/m/' || i, '{}', 200, '{}', CAST('b' || i AS BLOB), 0, '2026-12-01T00:00:00.000Z' FROM n
            """, [.text(tenant), .integer(Int64(count))])
    }

    /// Regression (try6a F4): with tenant `bulk` holding 10,001 mocks and `bulk100k` 47,818 (the
    /// tester's database), a restart sat for 115 to 145 s at full CPU, not listening, logging
    /// nothing: each mock loaded was inserted into its tenant's table one by one, and every
    /// insert copied the table's url dictionary (quadratic). `LaunchedServer` gives a start 30
    /// seconds to answer health, the old load needed about four times that. The load is now
    /// logged first, and every mock is there, in order, with updates placed as before it.
    func testARestartWith57819StoredMocksOfTwoTenantsLoadsThemAllAndLogsTheLoadFirst() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let port = try FreePort.next()
        let arguments = ["--port", "\(port)", "--db", path, "--log-level", "info"]
        _ = try LaunchedServer(arguments, in: directory).terminate()
        do {
            let database = try Database(path: path)
            try database.execute("BEGIN")
            try store(10_001, of: "bulk", in: database)
            try store(47_818, of: "bulk100k", in: database)
            try database.execute("COMMIT")
        }

        let server = try LaunchedServer(arguments, in: directory)
        defer { _ = try? server.terminate() }
        let log = server.stderrText
        let loading = try XCTUnwrap(log.range(of: "loading 57819 mocks of 2 tenants"), log)
        let listening = try XCTUnwrap(log.range(of: "listening on"), log)
        XCTAssertLessThan(loading.lowerBound, listening.lowerBound, log)
        XCTAssertTrue(log.contains("loaded 57819 mocks in "), log)

        let client = try server.client()
        let listed = try E2E.mocks(client, tenant: "bulk")
        XCTAssertEqual(listed.compactMap { JSONNumber.int($0["position"]) }, Array(1...10_001))
        // The larger tenant by requests alone (its listing takes long in a debug build).
        for (tenant, count) in [("bulk", 10_001), ("bulk100k", 47_818)] {
            for index in [1, count / 2, count] {
                XCTAssertEqual(try client.request("GET", "/m/\(index)", headers: E2E.tenantHeader(tenant)).text, "b\(index)", tenant)
            }
        }
        XCTAssertEqual(try client.request("GET", "/m/10002", headers: E2E.tenantHeader("bulk")).status, 404)

        // An update of a loaded pattern replaces it in place; a new one goes after the last.
        try E2E.addMock(client, tenant: "bulk", url: "/m/5000", body: "replaced")
        try E2E.addMock(client, tenant: "bulk", url: "/new", body: "new")
        let mocks = try E2E.mocks(client, tenant: "bulk")
        XCTAssertEqual(mocks.count, 10_002)
        let positions = Dictionary(
            mocks.map { (((($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String ?? "?"), JSONNumber.int($0["position"]) ?? -1) },
            uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(positions["/m/5000"], 5000)
        XCTAssertEqual(positions["/new"], 10_002)
        XCTAssertEqual(try client.request("GET", "/m/5000", headers: E2E.tenantHeader("bulk")).text, "replaced")
    }
}
