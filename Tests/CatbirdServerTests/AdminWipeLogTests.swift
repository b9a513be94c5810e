import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester39b-F6: at the shipped unit's `--log-level warning`, the admin's drop of
/// every tenant and removal of every tenant's mocks left no line in the log (an info request
/// line only), the first thing an on-call person looks for when every shard's mocks are gone.
/// Both are now warnings, with what they took.
final class AdminWipeLogTests: XCTestCase {
    func testWipingEveryTenantIsLoggedAtWarningLevel() throws {
        try LaunchedServer.withTemporaryDatabase { server, client in
            for tenant in ["victim-1", "victim-2"] { try E2E.addMock(client, tenant: tenant, url: "/x", body: "x") }
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks?all=true").status, 200)
            try E2E.addMock(client, tenant: "victim-3", url: "/x", body: "x")
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true").status, 204)
            let log = try server.terminate().stderr
            XCTAssertTrue(log.contains("[warning] admin: removed every tenant's mocks: 2 mocks (DELETE /catbird/api/mocks?all=true)"), log)
            XCTAssertTrue(log.contains("[warning] admin: dropped every tenant: 3 tenants besides the default one"), log)
        }
    }
}

/// Tester finding tester59a-F1 and F2, their inputs: the log could not tell a `remove` from a
/// `removeAll` (both `→ 204 control`), the admin's drop of another shard's tenant and removal of
/// the default tenant's fixtures left no line at the shipped unit's warning level, and the
/// tenant TTL's line named no tenant ("pruned 2 tenant(s) idle longer than 3s").
final class OperatorLogTests: XCTestCase {
    /// A server on a temporary database with `arguments`, logging at info level (the lines a
    /// `removeAll` adds are info), and its client.
    private static func withInfoLog(_ arguments: [String], _ body: (LaunchedServer, RawHTTPClient) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-oplog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db.sqlite").path] + arguments, in: directory)
        defer { _ = try? server.terminate() }
        try body(server, try server.client())
    }

    func testTheAdminsDropsAndRemovalsAreWarningsAndARemoveAllSaysWhatItRemoved() throws {
        let token = [("Authorization", "Bearer op-token")]
        try Self.withInfoLog(["--admin-token", "op-token"]) { server, client in
            try E2E.addMock(client, tenant: "s1", url: "/own", body: "own")
            try E2E.addMock(client, tenant: "sh1", url: "/x", body: "x")
            for url in ["/shared", "/shared2"] {
                let added = try client.json(
                    "POST", "/catbird/api/mocks",
                    #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"\#(url)"}},"response":{"status":200}}"#,
                    headers: token)
                XCTAssertEqual(added.status, 201, added.text)
            }
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: E2E.tenantHeader("s1")).status, 204)
            XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: token).status, 204)
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/sh1", headers: token).status, 204)
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/s1", headers: E2E.tenantHeader("s1")).status, 204)
            let log = try server.terminate().stderr
            XCTAssertTrue(log.contains(#"[info] tenant "s1": removeAll removed 1 mocks"#), log)
            XCTAssertTrue(log.contains("[warning] admin: removed the default tenant's 2 mocks, which every shard falls back to (removeAll)"), log)
            XCTAssertTrue(log.contains(#"[warning] admin: dropped tenant "sh1", its mocks and journal (DELETE /catbird/api/tenants/{id})"#), log)
            XCTAssertFalse(log.contains(#"admin: dropped tenant "s1""#), "a shard's drop of itself is routine: \(log)")
        }
    }

    func testTheTenantTTLNamesTheTenantsItDropped() throws {
        try Self.withInfoLog(["--tenant-ttl", "1s"]) { server, client in
            try E2E.addMock(client, tenant: "ttl-a", url: "/d", body: "d")
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, try client.request("GET", "/catbird/api/tenants").text.contains("ttl-a") {
                usleep(200_000)
            }
            XCTAssertFalse(try client.request("GET", "/catbird/api/tenants").text.contains("ttl-a"), "dropped within 20 s")
            let log = try server.terminate().stderr
            XCTAssertTrue(log.contains(#"tenant(s) idle longer than 1s (with 1 mocks and 0 journal rows: tenant "ttl-a")"#), log)
        }
    }
}
