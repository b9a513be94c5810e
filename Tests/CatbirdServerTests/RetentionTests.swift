import CatbirdDomain
import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Retention on a real database file (docs/operations.md#retention): the journal's row limit
/// and age limit, idle tenants dropped, every removal counted in `/catbird/api/info` and
/// `/catbird/metrics`; pruning runs off the request path, in batches.
final class RetentionTests: XCTestCase {
    /// `settings.retention` for one test, a pass every 100 ms.
    private func server(_ policy: RetentionPolicy, database: String? = nil) throws -> TestServer {
        try TestServer { settings in
            settings.retention = policy
            settings.retentionInterval = .milliseconds(100)
            if let database { settings.databasePath = database }
        }
    }

    private func pruned(_ client: RawHTTPClient) throws -> [String: Int] {
        let info = try client.request("GET", "/catbird/api/info").object
        let pruned = (info["retention"] as? [String: Any])?["pruned"] as? [String: Any] ?? [:]
        return pruned.compactMapValues { JSONNumber.int($0) }
    }

    /// Polls `/catbird/api/info` until `key` reaches `expected` (or 20 s pass).
    private func waitForPruned(_ client: RawHTTPClient, _ key: String, _ expected: Int, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try pruned(client)[key] == expected { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("\(key) never reached \(expected): \(try pruned(client))", line: line)
    }

    private func journalIDs(_ client: RawHTTPClient, tenant: String?) throws -> [Int] {
        try E2E.journal(client, tenant: tenant).compactMap { JSONNumber.int($0["id"]) }
    }

    /// Changes the file while no server has it open (the lock file keeps servers out meanwhile).
    private func edit(_ path: String, _ sql: String) throws {
        let database = try Database(path: path, mode: .readWrite)
        try database.execute(sql)
    }

    func testTheJournalKeepsItsNewestRowsUpToTheLimit() throws {
        let test = try server(.init(tenantTTL: nil, journalMaxRows: 1200, journalMaxAge: nil))
        defer { test.removeFiles() }
        let client = try test.client()
        try E2E.addMock(client, tenant: "alpha", url: "/a", body: "a")
        // 1,500 requests, alternating tenants: 300 over the limit, pruned oldest first.
        var sent = 0
        for batch in 0..<15 {
            let requests = (0..<100).map { index in
                E2E.PipelinedRequest(method: "GET", target: index % 2 == 0 ? "/a" : "/b", headers: E2E.tenantHeader(index % 2 == 0 ? "alpha" : "beta"))
            }
            XCTAssertEqual(try E2E.pipeline(client, requests).count, 100, "batch \(batch)")
            sent += 100
        }
        try waitForPruned(client, "journalRowsOverLimit", sent - 1200)
        // Read before the journaled `GET /a` below, which a prune pass may already have pruned one more for (301).
        let metrics = try client.request("GET", "/catbird/metrics").text
        XCTAssertTrue(metrics.contains("catbird_pruned_journal_rows_total{reason=\"max_rows\"} 300\n"), metrics)
        let count = try E2E.sqlRows(client, "SELECT COUNT(*) FROM requests", tenant: "alpha").first?.first
        XCTAssertEqual(JSONNumber.int(count ?? nil), 600, "alpha keeps its newest 600 of 750")
        let alpha = try journalIDs(client, tenant: "alpha")
        let beta = try journalIDs(client, tenant: "beta")
        XCTAssertEqual(alpha.count + beta.count, 1200)
        XCTAssertGreaterThan(min(alpha.min() ?? 0, beta.min() ?? 0), 300, "the 300 oldest rows went, no others")
        XCTAssertEqual(try client.request("GET", "/a", headers: E2E.tenantHeader("alpha")).text, "a", "mocks are untouched")
    }

    func testRowsOlderThanTheMaximumAgeArePrunedAndNewerOnesKept() throws {
        let first = try server(.off)
        let path = first.databasePath
        let client = try first.client()
        for index in 0..<30 { _ = try client.request("GET", "/old/\(index)", headers: E2E.tenantHeader("alpha")) }
        first.stop()
        try edit(path, "UPDATE journal_rows SET time = '2020-01-01T00:00:00.000Z' WHERE url LIKE '/old/%';")

        let second = try server(.init(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: .seconds(3600)), database: path)
        defer { second.removeFiles(); first.removeFiles() }
        let again = try second.client()
        for index in 0..<5 { _ = try again.request("GET", "/new/\(index)", headers: E2E.tenantHeader("alpha")) }
        try waitForPruned(again, "journalRowsByAge", 30)
        let urls = try E2E.journal(again, tenant: "alpha").compactMap { $0["url"] as? String }
        XCTAssertEqual(urls, (0..<5).map { "/new/\($0)" })
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(try pruned(again)["journalRowsByAge"], 30, "later passes find nothing more")
    }

    func testATenantIdleLongerThanItsTTLIsDroppedWithItsMocksAndJournal() throws {
        let first = try server(.off)
        let path = first.databasePath
        let client = try first.client()
        for tenant in ["stale", "fresh"] {
            try E2E.addMock(client, tenant: tenant, url: "/m", body: tenant)
            for _ in 0..<3 { _ = try client.request("GET", "/m", headers: E2E.tenantHeader(tenant)) }
        }
        try E2E.addMock(client, tenant: nil, url: "/shared", body: "default")
        first.stop()
        try edit(path, "UPDATE tenants SET last_activity_at = '2020-01-01T00:00:00.000Z' WHERE id IN ('stale', '');")

        let second = try server(.init(tenantTTL: .seconds(86_400), journalMaxRows: nil, journalMaxAge: nil), database: path)
        defer { second.removeFiles(); first.removeFiles() }
        let again = try second.client()
        try waitForPruned(again, "idleTenants", 1)
        XCTAssertEqual(try pruned(again)["idleTenantMocks"], 1)
        XCTAssertEqual(try pruned(again)["idleTenantJournalRows"], 3)
        let ids = try E2E.tenants(again).compactMap { $0["id"] as? String }
        XCTAssertEqual(ids, ["", "fresh"], "the default tenant is never dropped")
        XCTAssertEqual(
            try again.request("GET", "/m", headers: E2E.tenantHeader("stale")).status, 404,
            "the dropped tenant's mock no longer answers (forgotten in memory too)")
        XCTAssertEqual(try again.request("GET", "/m", headers: E2E.tenantHeader("fresh")).text, "fresh")
        XCTAssertEqual(try again.request("GET", "/shared").text, "default")
        XCTAssertEqual(try journalIDs(again, tenant: "fresh").count, 4)
    }

    /// Regression (tester finding tester31b-F3): `DELETE /catbird/api/requests` that deleted a
    /// row left the tenant's stored `last_activity_at` at its earlier hit, so after a restart
    /// with `--tenant-ttl 20s` the tenant and its mock were dropped 8 s after the clear. A clear
    /// that deletes entries is now stored as activity, as a mock change is. Here the earlier
    /// activity is made old on the file; `stale`, as old and not cleared, shows a pass ran.
    func testAJournalClearIsStoredAsActivityThatTheTTLReadsAfterARestart() throws {
        let first = try server(.off)
        let path = first.databasePath
        let client = try first.client()
        for tenant in ["X", "stale"] {
            try E2E.addMock(client, tenant: tenant, url: "/a", body: tenant)
            XCTAssertEqual(try client.request("GET", "/a", headers: E2E.tenantHeader(tenant)).status, 200)
        }
        first.stop()
        try edit(path, "UPDATE tenants SET last_activity_at = '2020-01-01T00:00:00.000Z' WHERE id IN ('X', 'stale');")

        let second = try server(.off, database: path)
        let cleared = try second.client().request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("X"))
        XCTAssertEqual(cleared.status, 200, cleared.text)
        XCTAssertEqual(JSONNumber.int(cleared.object["deleted"]), 1, cleared.text)
        second.stop()

        let third = try server(.init(tenantTTL: .seconds(86_400), journalMaxRows: nil, journalMaxAge: nil), database: path)
        defer { third.removeFiles(); second.removeFiles(); first.removeFiles() }
        let again = try third.client()
        try waitForPruned(again, "idleTenants", 1)
        XCTAssertEqual(try E2E.tenants(again).compactMap { $0["id"] as? String }, ["", "X"], "only the idle one is dropped")
        XCTAssertEqual(try again.request("GET", "/a", headers: E2E.tenantHeader("X")).text, "X")
    }

    /// Regression (tester finding tester34b-F7): an idle tenant's journal is deleted in
    /// batches before the tenant is dropped; one active again meanwhile is kept, but the
    /// entries its deletion had taken were gone unsaid: no `prunedThrough` in its count or
    /// pages (12,000 of 161,152 gone). Here a pass deletes at most 100,000 of the idle tenant's
    /// 300,000 entries (200 batches of 500); the tenant then sends a request and is kept, its
    /// count and listing saying what went (without the fix: no `prunedThrough` in either).
    func testATenantActiveAgainDuringItsTTLDeletionIsKeptAndToldWhatWent() throws {
        let first = try server(.off)
        let path = first.databasePath
        let client = try first.client()
        try E2E.addMock(client, tenant: "back", url: "/m", body: "back")
        XCTAssertEqual(try client.request("GET", "/m", headers: E2E.tenantHeader("back")).text, "back")
        first.stop()
        try edit(
            path,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
            INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms)
            SELECT '2020-01-01T00:00:00.000Z', 'back', 'GET', '/old', 200, 'none', 0 FROM n;
            UPDATE tenants SET last_activity_at = '2020-01-01T00:00:00.000Z' WHERE id = 'back';
            """)

        let second = try TestServer { settings in
            settings.retention = .init(tenantTTL: .seconds(86_400), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .seconds(4)
            settings.databasePath = path
        }
        defer { second.removeFiles(); first.removeFiles() }
        let again = try second.client()
        try waitForPruned(again, "idleTenantJournalRows", 100_000)
        XCTAssertEqual(try again.request("GET", "/m", headers: E2E.tenantHeader("back")).text, "back", "active again")
        Thread.sleep(forTimeInterval: 5)  // the next pass: the tenant is kept
        XCTAssertEqual(try pruned(again)["idleTenants"], 0)
        XCTAssertEqual(try E2E.tenants(again).compactMap { $0["id"] as? String }, ["", "back"])
        let count = try again.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"wildcard","value":"*"}}}"#,
            headers: E2E.tenantHeader("back"))
        let through = try XCTUnwrap(JSONNumber.int(count.object["prunedThrough"]), "the count says entries were pruned: \(count.text)")
        // Ids 1 (the first hit) to 300,000; those up to `through` went (a pass left unfinished
        // is followed by the next at once, so more than the first 100,000 may go before the
        // request is seen), the rest and the new request stay.
        XCTAssertGreaterThanOrEqual(through, 100_000)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 300_000 - through + 1, count.text)
        let page = try E2E.journalPage(again, tenant: "back", query: "limit=1")
        XCTAssertEqual(JSONNumber.int(page["prunedThrough"]), through, "\(page)")
        let oldest = try XCTUnwrap(JSONNumber.int((page["requests"] as? [[String: Any]])?.first?["id"]))
        XCTAssertEqual(oldest, through + 1, "the entries kept follow those pruned")
    }

    /// Regression (tester finding tester34b-F8): `--tenant-ttl` dropped a tenant while one of its
    /// requests was still arriving (30,000 bytes, 2,000 every 0.6 s, against a 3-s TTL): the
    /// upload then met no mock (404) and made the tenant again, empty. A request whose body is
    /// on its way is the tenant's work in flight from its head on. Here a 2-s TTL and a body
    /// trickled over about 4 s: the upload gets its mock's 201 and the tenant keeps its mocks.
    func testATenantIsNotDroppedUnderASlowUpload() throws {
        let test = try TestServer { settings in
            settings.retention = .init(tenantTTL: .seconds(2), journalMaxRows: nil, journalMaxAge: nil)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { test.removeFiles() }
        let client = try test.client()
        try E2E.addMock(client, tenant: "slowup", method: "POST", url: "/upload", status: 201, body: nil)
        try E2E.addMock(client, tenant: "slowup", url: "/kept", body: "kept")
        let uploader = try test.client()
        try uploader.send(raw: Array("POST /upload HTTP/1.1\r\nHost: t\r\nX-Catbird-Parallel-Id: slowup\r\nContent-Length: 8000\r\n\r\n".utf8))
        for _ in 0..<8 {
            try uploader.send(raw: [UInt8](repeating: UInt8(ascii: "x"), count: 1_000))
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(try uploader.readResponse().status, 201, "the upload met its mock")
        XCTAssertEqual(try client.request("GET", "/kept", headers: E2E.tenantHeader("slowup")).text, "kept", "the tenant kept its mocks")
        XCTAssertEqual(try pruned(client)["idleTenants"], 0)
    }

    func testTheLimitsInForceAreInTheInfoAnswer() throws {
        let test = try server(.init(tenantTTL: .seconds(90), journalMaxRows: nil, journalMaxAge: .seconds(7 * 86_400)))
        defer { test.removeFiles() }
        let info = try test.client().request("GET", "/catbird/api/info").object
        let retention = info["retention"] as? [String: Any] ?? [:]
        XCTAssertEqual(JSONNumber.int(retention["tenantTTLSeconds"]), 90)
        XCTAssertTrue(E2E.isNull(retention["journalMaxRows"]) && retention.keys.contains("journalMaxRows"), "\(retention)")
        XCTAssertEqual(JSONNumber.int(retention["journalMaxAgeSeconds"]), 604_800)
        XCTAssertEqual(info["version"] as? String, CatbirdServer.version, "Catbird 0.11's keys stay")
    }

    func testDurationsAreWrittenWithAUnit() {
        XCTAssertEqual(RetentionDuration.parse("90s"), .some(.seconds(90)))
        XCTAssertEqual(RetentionDuration.parse("30m"), .some(.seconds(1800)))
        XCTAssertEqual(RetentionDuration.parse("12h"), .some(.seconds(43_200)))
        XCTAssertEqual(RetentionDuration.parse("7D"), .some(.seconds(604_800)))
        XCTAssertEqual(RetentionDuration.parse("off"), .some(nil))
        XCTAssertEqual(RetentionDuration.parse("0"), .some(nil))
        XCTAssertEqual(RetentionDuration.parse("0s"), .some(nil), "regression: `--tenant-ttl 0s` was refused")
        XCTAssertEqual(RetentionDuration.parse("0d"), .some(nil))
        for bad in ["", "7", "d", "-1d", "-0s", "+5d", "1.5h", "7 days", "9999999999999d", "1w"] {
            XCTAssertTrue(RetentionDuration.parse(bad) == nil, bad)
        }
        XCTAssertEqual(RetentionDuration.format(.seconds(604_800)), "7d")
        XCTAssertEqual(RetentionDuration.format(.seconds(90)), "90s")
        XCTAssertEqual(RetentionDuration.format(.seconds(5400)), "90m")
    }
}
