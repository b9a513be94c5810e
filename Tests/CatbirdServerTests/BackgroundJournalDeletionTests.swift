import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Clearing a journal and dropping a tenant answer at once whatever the journal's size: the
/// rows disappear for every reader at once and are deleted in the background in small chunks
/// (docs/protocol.md#journal, docs/tenancy.md). Regression: clearing a 2.4M-row journal took
/// 5.6 s as one statement holding the write connection.
final class BackgroundJournalDeletionTests: XCTestCase {
    func testAClearedJournalAndADroppedTenantVanishAtOnceAndAreDeletedInTheBackground() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        // Large journals for tenants a and b (written now, so retention leaves them), straight
        // into the file while the server is stopped.
        try server.restart { database in
            try database.execute("""
                INSERT INTO tenants (id, created_at, last_activity_at) VALUES
                  ('a', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
                  ('b', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400000)
                INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms)
                SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'GET', '/x/' || i,
                       '{"Accept":"*/*"}', 404, 'none', 0.1 FROM n;
                """)
        }
        let client = try server.client()
        try E2E.addMock(client, tenant: "c", url: "/c", body: "c")

        // Clear a's journal: 200,000 entries gone for every reader the moment it answers.
        var started = ContinuousClock.now
        let cleared = try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("a"))
        let clearTook = ContinuousClock.now - started
        XCTAssertEqual(cleared.status, 200, cleared.text)
        XCTAssertEqual((cleared.object["deleted"] as? NSNumber)?.intValue, 200_000)
        XCTAssertEqual(try E2E.journal(client, tenant: "a").count, 0)
        XCTAssertEqual(try E2E.count(client, tenant: "a", patternJSON: #"{"method":"GET","url":{"kind":"wildcard","value":"/x/*"},"headers":{}}"#), 0)
        XCTAssertEqual(try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: "a").first?.first as? Int, 0)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/2", headers: E2E.tenantHeader("a")).status, 404)

        // Drop tenant b: gone from the listing, its journal gone; a new request of the same id
        // starts a new tenant with only that request.
        started = ContinuousClock.now
        let dropped = try client.request("DELETE", "/catbird/api/tenants/b")
        let dropTook = ContinuousClock.now - started
        XCTAssertTrue([200, 204].contains(dropped.status), dropped.text)
        XCTAssertFalse(try E2E.tenants(client).contains { $0["id"] as? String == "b" })
        XCTAssertEqual(try client.request("GET", "/x/again", headers: E2E.tenantHeader("b")).status, 404)
        XCTAssertEqual(try E2E.journal(client, tenant: "b").map { $0["url"] as? String }, ["/x/again"])
        let listed = try E2E.tenants(client).first { $0["id"] as? String == "b" }
        XCTAssertEqual((listed?["requests"] as? NSNumber)?.intValue, 1)

        // Another tenant's mock keeps answering while the background deletes run.
        for _ in 0..<20 {
            XCTAssertEqual(try client.request("GET", "/c", headers: E2E.tenantHeader("c")).text, "c")
        }

        // The rows themselves go in the background; the file ends up without them. (Paced to
        // hold the write connection at most half the time, 400,000 rows took about 30 s on a
        // loaded 2-core machine: the deadline leaves room for a slower one.)
        let deadline = ContinuousClock.now + .seconds(180)
        var left = -1
        while ContinuousClock.now < deadline {
            let reader = try Database(path: server.databasePath, mode: .readOnly)
            left = Int(try reader.query("SELECT count(*) FROM requests WHERE url GLOB '/x/[0-9]*'").first?[0].intValue ?? -1)
            reader.close()
            if left == 0 { break }
            usleep(200_000)
        }
        XCTAssertEqual(left, 0, "the background deletion finished")
        XCTAssertEqual(try E2E.journal(client, tenant: "b").count, 1, "the new request stays")
        // Generous for a loaded machine; one 200,000-row DELETE statement took about a second here.
        XCTAssertLessThan(clearTook, .seconds(2), "the clear answered at once")
        XCTAssertLessThan(dropTook, .seconds(2), "the drop answered at once")
        print("clear answered in \(clearTook), drop in \(dropTook)")
    }

    /// A deletion left unfinished by a stopped server is completed by the next run, in the
    /// background once it listens (tester finding try9b F6: a start right after dropping
    /// 100,000 rows waited 9-16 s before listening); its rows stay hidden meanwhile.
    func testADeletionLeftUnfinishedIsCompletedAtTheNextStart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<5 { _ = try client.request("GET", "/d/\(index)", headers: E2E.tenantHeader("d")) }
        try server.restart { database in
            let newest = try database.query("SELECT max(id) FROM requests WHERE tenant = 'd'").first?[0].intValue ?? 0
            try database.run("INSERT INTO journal_deletions (tenant, through_id) VALUES ('d', ?)", [.integer(newest - 2)])
        }
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: "d").map { $0["url"] as? String }, ["/d/3", "/d/4"])
        let reader = try Database(path: server.databasePath, mode: .readOnly)
        defer { reader.close() }
        let deadline = Date().addingTimeInterval(20)
        while try reader.query("SELECT count(*) FROM journal_deletions").first?[0].intValue != 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(try reader.query("SELECT count(*) FROM requests WHERE tenant = 'd'").first?[0].intValue, 2)
        XCTAssertEqual(try reader.query("SELECT count(*) FROM journal_deletions").first?[0].intValue, 0)
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: "d").map { $0["url"] as? String }, ["/d/3", "/d/4"])
    }

    /// try10a F6: every start on a new database (every `:memory:` run, every CI job with a fresh
    /// file) logged "finishing dropped tenants' and cleared journals' deletions before
    /// migrating", as if a previous run had left work behind. The line comes only when
    /// deletions are pending before a migration; a new file logs its migrations alone, and a
    /// restart without a migration to apply finishes pending deletions in the background,
    /// silently (the review's deterministic check of try9b F6: the old start-up finished them
    /// before listening, and said so).
    func testOnlyPendingDeletionsBeforeAMigrationAreAnnouncedAtStartUp() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-f6-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "new.sqlite"], in: directory)
        let client = try first.client()
        for index in 0..<3 { _ = try client.request("GET", "/d/\(index)", headers: E2E.tenantHeader("d")) }
        let fresh = try first.terminate().stderr
        XCTAssertTrue(fresh.contains("applied migrations"), fresh)
        XCTAssertFalse(fresh.contains("before migrating"), fresh)

        let database = try Database(path: directory.appendingPathComponent("new.sqlite").path)
        let newest = try database.query("SELECT max(id) FROM requests WHERE tenant = 'd'").first?[0].intValue ?? 0
        try database.run("INSERT INTO journal_deletions (tenant, through_id) VALUES ('d', ?)", [.integer(newest - 1)])
        database.close()
        let second = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", "new.sqlite"], in: directory)
        XCTAssertEqual(try E2E.journal(try second.client(), tenant: "d").map { $0["url"] as? String }, ["/d/2"])
        let restarted = try second.terminate().stderr
        XCTAssertFalse(restarted.contains("before migrating"), "no migration to apply: finished in the background. \(restarted)")
        XCTAssertFalse(restarted.contains("applied migrations"), restarted)
    }
}
