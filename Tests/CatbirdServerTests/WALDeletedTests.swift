import CatbirdTestSupport
import Foundation
import XCTest

/// The database's `-wal` or `-shm` deleted under a running server (README.md#storage-faults).
final class WALDeletedTests: XCTestCase {
    /// Regression (tester finding tester29b-F2, its steps: `update /w1`, `rm w.sqlite-wal`,
    /// `update /w2`, `update /w3`, health): health said `ok`, and a `kill -9` then lost all
    /// three acknowledged mocks. Health now answers 503 naming the `-wal` and what to do;
    /// changes are still acknowledged (SQLite writes to the `-wal` it has open), and a stop
    /// (SIGTERM) copies them into the file, so a restart has all three.
    func testADeletedWALIsReportedByHealthAndAStopKeepsEveryChange() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let tenant = "w"
            try E2E.addMock(client, tenant: tenant, url: "/w1", body: "1")
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
            XCTAssertEqual(unlink(database + "-wal"), 0)
            try E2E.addMock(client, tenant: tenant, url: "/w2", body: "2")
            try E2E.addMock(client, tenant: tenant, url: "/w3", body: "3")
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            XCTAssertEqual(health.object["status"] as? String, "degraded")
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.hasPrefix("the database's -wal file was deleted or replaced under the running server (\(database)-wal): "), reason)
            XCTAssertTrue(reason.contains("a crash would lose every change since the last checkpoint; stop the server and start it again"), reason)
            XCTAssertEqual(try server.terminate().status, 0)

            let port = try FreePort.next()
            let again = try LaunchedServer(
                ["--port", "\(port)", "--db", database], in: URL(fileURLWithPath: database).deletingLastPathComponent())
            let mocks = try E2E.mockList(try RawHTTPClient(port: port), tenant: tenant)["mocks"] as? [[String: Any]] ?? []
            XCTAssertEqual(mocks.count, 3, "\(mocks)")
            XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200, "a new -wal, all well")
            XCTAssertEqual(try again.terminate().status, 0)
        }
    }

    /// Regression (tester finding tester54c-F1, its first step: `rm <db>-shm` under a server
    /// taking changes): health said `ok`, and a `sqlite3` checkpoint afterwards (which made a
    /// new `-shm`, blind to the server's locks) corrupted the file. Health now answers 503
    /// naming the `-shm` and what to do; changes are still acknowledged, and a stop keeps them.
    func testADeletedSHMIsReportedByHealthAndAStopKeepsEveryChange() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let tenant = "s"
            try E2E.addMock(client, tenant: tenant, url: "/s1", body: "1")
            XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)
            XCTAssertEqual(unlink(database + "-shm"), 0)
            try E2E.addMock(client, tenant: tenant, url: "/s2", body: "2")
            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            XCTAssertEqual(health.object["status"] as? String, "degraded")
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.hasPrefix("the database's -shm file was deleted or replaced under the running server (\(database)-shm): "), reason)
            XCTAssertTrue(reason.contains("let nothing else open it, and stop the server and start it again"), reason)
            XCTAssertEqual(try client.request("GET", "/s2", headers: [("X-Catbird-Parallel-Id", tenant)]).status, 200)
            XCTAssertEqual(try server.terminate().status, 0)

            let port = try FreePort.next()
            let again = try LaunchedServer(
                ["--port", "\(port)", "--db", database], in: URL(fileURLWithPath: database).deletingLastPathComponent())
            let mocks = try E2E.mockList(try RawHTTPClient(port: port), tenant: tenant)["mocks"] as? [[String: Any]] ?? []
            XCTAssertEqual(mocks.count, 2, "\(mocks)")
            XCTAssertEqual(try RawHTTPClient(port: port).request("GET", "/catbird/api/health").status, 200, "a new -shm, all well")
            XCTAssertEqual(try again.terminate().status, 0)
        }
    }
}
