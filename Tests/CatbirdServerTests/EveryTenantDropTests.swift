import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Dropping tenants on a shared, long-running host (docs/tenancy.md#admin): the drop of every
/// tenant hides every journal at once with one floor, not one per tenant, and whatever a
/// dropped tenant held in memory goes with it (`catbird_tenant_memory_entries`,
/// docs/operations.md#metrics).
final class EveryTenantDropTests: XCTestCase {
    /// Regression: `DELETE /catbird/api/tenants?all=true` read each tenant's highest journal id
    /// and wrote one `journal_deletions` row per tenant before it answered (3.9 s at 64,000
    /// tenants), and left the rows of a tenant whose `tenants` row was already gone (a request
    /// answered after its tenant's drop) in the journal. Now one floor for the whole journal:
    /// no per-tenant row is written, every journal is gone for every reader when it answers,
    /// those rows included, and the background deletion removes them all.
    func testDroppingEveryTenantHidesEveryJournalWithOneFloor() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        // 3,000 tenants with two journal rows each, and rows of "orphan", whose tenants row is
        // gone, straight into the file while the server is stopped.
        try server.restart { database in
            try database.execute("""
                PRAGMA foreign_keys=OFF;
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
                INSERT INTO tenants (id, created_at, last_activity_at)
                SELECT 'shard-' || i, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM n;
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 5999)
                INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms)
                SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'shard-' || (i % 3000), 'GET', '/x/' || i, '{}', 404, 'none', 0.1 FROM n;
                INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms)
                VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'orphan', 'GET', '/orphan', '{}', 404, 'none', 0.1);
                """)
        }
        let client = try server.client()
        XCTAssertEqual(try E2E.journal(client, tenant: "orphan").count, 1, "the orphan's row is readable before the drop")
        XCTAssertEqual(try E2E.journal(client, tenant: "shard-7").count, 2)

        let dropped = try client.request("DELETE", "/catbird/api/tenants?all=true")
        XCTAssertEqual(dropped.status, 204, dropped.text)

        // No per-tenant floor was written (the background deletion of 3,000 of them would still
        // be running: each takes two passes at least a millisecond apart).
        let file = try Database(path: server.databasePath, mode: .readOnly)
        defer { file.close() }
        XCTAssertEqual(try file.query("SELECT count(*) FROM journal_deletions").first?[0].intValue, 0)
        // Gone for every reader at once: listing, pages, SQL, the orphan's rows too.
        XCTAssertEqual(try E2E.tenants(client).compactMap { $0["id"] as? String }, [""])
        for tenant in ["shard-0", "shard-7", "shard-2999", "orphan"] {
            XCTAssertEqual(try E2E.journal(client, tenant: tenant).count, 0, tenant)
            XCTAssertEqual(JSONNumber.int(try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: tenant).first?.first), 0, tenant)
        }
        // A tenant that comes back has only what comes next.
        XCTAssertEqual(try client.request("GET", "/x/again", headers: E2E.tenantHeader("shard-7")).status, 404)
        XCTAssertEqual(try E2E.journal(client, tenant: "shard-7").map { $0["url"] as? String }, ["/x/again"])

        // The rows go in the background, by id; the new request stays.
        let deadline = ContinuousClock.now + .seconds(60)
        var left: Int64 = -1
        while ContinuousClock.now < deadline {
            left = try file.query("SELECT (SELECT count(*) FROM journal_rows) + (SELECT count(*) FROM journal_deletions_all)").first?[0].intValue ?? -1
            if left == 1 { break }
            usleep(100_000)
        }
        XCTAssertEqual(left, 1, "every dropped row and the floor deleted; the new request kept")
        XCTAssertEqual(try E2E.journal(client, tenant: "shard-7").map { $0["url"] as? String }, ["/x/again"])
    }

    /// A drop of every tenant left unfinished by a stopped server hides the rows after a
    /// restart too, and the next run finishes it.
    func testADropOfEveryTenantLeftUnfinishedIsFinishedByTheNextRun() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<4 { _ = try client.request("GET", "/d/\(index)", headers: E2E.tenantHeader("d\(index % 2)")) }
        try server.restart { database in
            let newest = try database.query("SELECT max(id) FROM journal_rows").first?[0].intValue ?? 0
            try database.run("INSERT INTO journal_deletions_all (id, through_id) VALUES (1, ?)", [.integer(newest - 1)])
        }
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: "d0").count, 0)
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: "d1").map { $0["url"] as? String }, ["/d/3"])
        let file = try Database(path: server.databasePath, mode: .readOnly)
        defer { file.close() }
        let deadline = ContinuousClock.now + .seconds(20)
        while try file.query("SELECT count(*) FROM journal_deletions_all").first?[0].intValue != 0, ContinuousClock.now < deadline {
            usleep(50_000)
        }
        XCTAssertEqual(try file.query("SELECT url FROM journal_rows").map { $0[0].stringValue }, ["/d/3"])
        XCTAssertEqual(try E2E.journal(try server.client(), tenant: "d1").map { $0["url"] as? String }, ["/d/3"])
    }

    /// Regression: dropped tenants' entries stayed in memory (remembered journal commits until
    /// two minutes of later commits had passed, and for ever on a server no request reached
    /// afterwards; each tenant's ended work for the whole `--tenant-ttl`, 7 days by default):
    /// about 470 bytes per tenant after dropping 64,000. Each tenant here has a mock (added on
    /// a control lane: work answered later) and a request journaled; dropped one by one or all
    /// at once, none of their entries stays.
    func testDroppedTenantsLeaveNoEntriesInMemory() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        func populate(_ prefix: String) throws {
            for index in 0..<150 {
                let tenant = "\(prefix)-\(index)"
                try E2E.addMock(client, tenant: tenant, url: "/m", body: "m")
                XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader(tenant)).text, "m")
            }
            _ = try E2E.journal(client, tenant: "\(prefix)-149")  // every entry committed
        }

        try populate("one")
        var entries = try Self.memoryEntries(client)
        XCTAssertGreaterThanOrEqual(entries["mock_tables"] ?? 0, 150, "\(entries)")
        XCTAssertGreaterThanOrEqual(entries["journal_commits"] ?? 0, 150, "\(entries)")
        XCTAssertGreaterThanOrEqual(entries["activity"] ?? 0, 150, "\(entries)")
        for index in 0..<150 {
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/one-\(index)").status, 204)
        }
        // A drop's journal is deleted in the background, its floor then let go.
        entries = try Self.memoryEntries(client, until: { ($0["journal_deletions"] ?? 0) == 0 })
        XCTAssertEqual(entries, Self.onlyTheScrape, "nothing of the dropped tenants stays")

        try populate("all")
        XCTAssertGreaterThanOrEqual(try Self.memoryEntries(client).values.reduce(0, +), 450)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants?all=true").status, 204)
        XCTAssertEqual(try Self.memoryEntries(client), Self.onlyTheScrape, "nothing of the dropped tenants stays")
    }

    /// Regression (tester finding tester32b-F3): a tenant that dropped itself (`DELETE
    /// /catbird/api/tenants/T` with its own parallel id) kept its `activity` entry, since its
    /// own drop call was still in flight when the drop forgot it: 3,001 entries after 3,000
    /// tenants came and dropped themselves, until `--tenant-ttl` passed (7 days by default).
    func testTenantsThatDropThemselvesLeaveNoEntriesInMemory() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<50 {
            let tenant = "self-\(index)"
            try E2E.addMock(client, tenant: tenant, url: "/m", body: "m")
            XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader(tenant)).text, "m")
            _ = try E2E.journal(client, tenant: tenant)
            XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/\(tenant)", headers: E2E.tenantHeader(tenant)).status, 204)
        }
        let entries = try Self.memoryEntries(client, until: { ($0["journal_deletions"] ?? 0) == 0 && ($0["activity"] ?? 0) <= 1 })
        XCTAssertEqual(entries, Self.onlyTheScrape, "nothing of the dropped tenants stays")
    }

    /// Regression (tester finding tester33a-F1): a tenant dropped right after its request, its
    /// entry still queued, kept a `journal_commits` and an `activity` entry 2-15 % of the time
    /// (for good with the default 7-day `--tenant-ttl`): the drop's flush was told of the commit
    /// before the journal writer noted it, so the drop forgot the tenant first and the writer's
    /// note brought it back. Each tenant here is dropped with its one request not yet read back.
    func testTenantsDroppedRightAfterTheirRequestLeaveNoEntriesInMemory() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let admin = try server.client()
        for index in 0..<200 {
            let tenant = "quick-\(index)"
            try E2E.addMock(client, tenant: tenant, url: "/m", body: "m")
            XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader(tenant)).text, "m")
            XCTAssertEqual(try admin.request("DELETE", "/catbird/api/tenants/\(tenant)").status, 204)
        }
        let entries = try Self.memoryEntries(client, until: { ($0["journal_deletions"] ?? 0) == 0 && ($0["activity"] ?? 0) <= 1 })
        XCTAssertEqual(entries, Self.onlyTheScrape, "nothing of the dropped tenants stays")
    }

    /// Regression (tester finding tester34b-F2, second part): a control read with a parallel id
    /// that has no tenant (a page's poll, `GET /catbird/api/mocks`) noted an `activity` entry
    /// kept for the whole `--tenant-ttl`: 50,000 such reads held 50,009 entries. Past 1,024
    /// entries, a retention pass forgets the ended work of ids with no tenant row (here 1,100
    /// such reads: 1,102 entries stayed before); a tenant's own entry stays.
    func testReadsOfIdsWithNoTenantLeaveBoundedActivityEntries() throws {
        let server = try TestServer { settings in
            settings.retention = .init(tenantTTL: .seconds(86_400), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "real", url: "/m", body: "m")
        XCTAssertEqual(try client.request("GET", "/catbird/api/mocks", headers: E2E.tenantHeader("real")).status, 200)
        for index in 0..<1_100 {
            XCTAssertEqual(try client.request("GET", "/catbird/api/mocks", headers: E2E.tenantHeader("ghost-\(index)")).status, 200)
        }
        // Below 1,024 entries no pass reads the tenants: the reads after the last trim may stay.
        let entries = try Self.memoryEntries(client, until: { ($0["activity"] ?? .max) <= 1_024 })
        XCTAssertLessThanOrEqual(entries["activity"] ?? .max, 1_024, "bounded, not one per id read until the TTL: \(entries)")
        XCTAssertEqual(try E2E.tenants(client).compactMap { $0["id"] as? String }, ["", "real"], "the real tenant is kept")
    }

    /// Regression (tester finding tester42b-F10): with every retention limit off no pruning
    /// thread ran, so the activity entries of made-up parallel ids (journal reads of ids with
    /// nothing yet) were never forgotten: 220,000 ids, 43 MB. The passes now run with the limits
    /// off too, forgetting ended work.
    func testReadsOfIdsWithNoTenantLeaveBoundedActivityEntriesWithRetentionOff() throws {
        let server = try TestServer { settings in
            settings.retention = .init(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: nil, journalMaxBytes: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<300 {
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests", headers: E2E.tenantHeader("ghost-\(index)")).status, 200)
        }
        let entries = try Self.memoryEntries(client, until: { ($0["activity"] ?? .max) <= 2 })
        XCTAssertLessThanOrEqual(entries["activity"] ?? .max, 2, "forgotten, not one per id ever read: \(entries)")
    }

    /// What is left once every tenant that had anything was dropped: the scrape itself, the
    /// default tenant's work in flight (answered on the metrics lane).
    private static let onlyTheScrape = [
        "mock_tables": 0, "journal_deletions": 0, "retention_notes": 0, "journal_commits": 0, "journal_waiters": 0, "activity": 1,
    ]

    /// `catbird_tenant_memory_entries` by kind, once `until` holds (up to 30 s).
    private static func memoryEntries(
        _ client: RawHTTPClient, until done: ([String: Int]) -> Bool = { _ in true }
    ) throws -> [String: Int] {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let text = try client.request("GET", "/catbird/metrics").text
            var entries: [String: Int] = [:]
            for line in text.split(separator: "\n") where line.hasPrefix("catbird_tenant_memory_entries{kind=\"") {
                let kind = line.dropFirst("catbird_tenant_memory_entries{kind=\"".count).prefix { $0 != "\"" }
                entries[String(kind)] = Int(line.split(separator: " ").last ?? "")
            }
            XCTAssertEqual(entries.count, 6, text)
            if done(entries) || ContinuousClock.now >= deadline { return entries }
            usleep(50_000)
        }
    }
}
