import CatbirdDomain
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// The journal's byte limit (`--journal-max-bytes`, docs/operations.md#retention) on a real
/// server and database file: try8b F6, where one tenant's uploads grew the shared file by
/// 40-60 MB/s with no bound but rows (1,000,000 rows of up to two 64-KiB bodies).
final class JournalByteLimitTests: XCTestCase {
    /// 1,000,000 bytes: about 16 rows of try8b F6's 60,000-byte uploads.
    private static let limit = 1_000_000

    private func server() throws -> TestServer {
        try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: nil, journalMaxBytes: Self.limit)
            settings.retentionInterval = .milliseconds(100)
        }
    }

    private func retention(_ client: RawHTTPClient) throws -> [String: Any] {
        try client.request("GET", "/catbird/api/info").object["retention"] as? [String: Any] ?? [:]
    }

    private func pruned(_ client: RawHTTPClient) throws -> Int {
        JSONNumber.int((try retention(client)["pruned"] as? [String: Any])?["journalRowsOverBytes"]) ?? 0
    }

    /// Polls `/catbird/api/info` until `done` holds for its retention object (or 20 s pass).
    private func waitForRetention(
        _ client: RawHTTPClient, _ what: String, line: UInt = #line, _ done: ([String: Any]) -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if done(try retention(client)) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTFail("never: \(what): \(try retention(client))", line: line)
    }

    private func upload(_ client: RawHTTPClient, tenant: String) throws -> Int {
        let body = (0..<60_000).map { _ in UInt8.random(in: 0...255) }
        return try client.request("POST", "/up", headers: E2E.tenantHeader(tenant), body: body).status
    }

    /// try8b F6's shape, scaled down: a tenant POSTs 60,000-byte random bodies to a POST mock
    /// answering 60,000 bytes. The uploading tenant's oldest rows go until the journal is within
    /// the limit, and another tenant's few older rows, far within its share, stay (try9b F2:
    /// they went first when the limit was one pool pruned oldest first); the newest rows that
    /// fit are kept, and a request answered now is read back at once.
    func testUploadsKeepTheJournalWithinItsByteLimitFromTheTenantOverItsShare() throws {
        let test = try server()
        defer { test.removeFiles() }
        let client = try test.client()
        for index in 0..<3 { _ = try client.request("GET", "/early/\(index)", headers: E2E.tenantHeader("beta")) }
        try E2E.addMock(client, tenant: "flood", method: "POST", url: "/up", body: String(repeating: "r", count: 60_000))
        for index in 0..<60 { XCTAssertEqual(try upload(client, tenant: "flood"), 200, "upload \(index)") }

        try waitForRetention(client, "the journal within its limit after pruning") { retention in
            let pruned = JSONNumber.int((retention["pruned"] as? [String: Any])?["journalRowsOverBytes"]) ?? 0
            return pruned > 0 && (JSONNumber.int(retention["journalBytes"]) ?? .max) <= Self.limit
        }
        XCTAssertEqual(JSONNumber.int(try retention(client)["journalMaxBytes"]), Self.limit)
        XCTAssertEqual(try E2E.journal(client, tenant: "beta").count, 3, "another tenant's older rows, within its share, stay")
        // A pass may have counted the journal while the last uploads' rows were still queued
        // for the writer (answered before they are written): the next pass prunes those too.
        // What fits is read again each time: a shared body released meanwhile changes it.
        var fitting = try floodRowsThatFit(test)
        var kept = try E2E.journal(client, tenant: "flood").compactMap { JSONNumber.int($0["id"]) }.sorted()
        let deadline = Date().addingTimeInterval(20)
        while kept.count != fitting.rows, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            kept = try E2E.journal(client, tenant: "flood").compactMap { JSONNumber.int($0["id"]) }.sorted()
            fitting = try floodRowsThatFit(test)
        }
        XCTAssertTrue(fitting.sameSize, "flood's rows are all the same size")
        XCTAssertEqual(kept.count, fitting.rows, "as many of flood's rows as fit in the limit beside the rest are kept")
        XCTAssertEqual(kept, Array((kept.first ?? 0)...(kept.first ?? 0) + kept.count - 1), "the newest rows, without gaps")
        let stored = try E2E.sqlRows(client, "SELECT sum(length(request_body)), max(id) FROM requests", tenant: "flood").first ?? []
        XCTAssertLessThanOrEqual(JSONNumber.int(stored.first ?? nil) ?? .max, Self.limit)
        XCTAssertEqual(JSONNumber.int(stored.last ?? nil), kept.last, "the last upload is among them")

        // Read your writes: a row answered now is there when the test reads, whatever the pruner does.
        var newest = kept.last ?? .max
        for index in 0..<5 {
            XCTAssertEqual(try upload(client, tenant: "flood"), 200)
            let last = try E2E.sqlRows(client, "SELECT max(id) FROM requests", tenant: "flood").first?.first
            XCTAssertGreaterThan(JSONNumber.int(last ?? nil) ?? 0, newest, "upload \(index) after pruning is read back at once")
            newest = JSONNumber.int(last ?? nil) ?? newest
        }
        // The pruner may delete the last uploads' excess between two reads: the metric is read
        // between two readings of /catbird/api/info.
        let prunedBefore = try pruned(client)
        let metrics = try client.request("GET", "/catbird/metrics").text
        let prunedAfter = try pruned(client)
        let sample = "catbird_pruned_journal_rows_total{reason=\"max_bytes\"} "
        let exported = metrics.split(separator: "\n").first { $0.hasPrefix(sample) }.flatMap { Int($0.dropFirst(sample.count)) }
        XCTAssertTrue((prunedBefore...prunedAfter).contains(exported ?? -1), "\(prunedBefore)...\(prunedAfter): \(metrics)")
        XCTAssertTrue(metrics.contains("catbird_journal_bytes "), metrics)
    }

    /// Rows deleted by others (a journal clear) leave the count with them: without that, the
    /// bytes of a cleared journal would go on counting, and the next tenant's rows would be
    /// pruned under a limit they are far within.
    func testAClearedJournalNoLongerCountsAgainstTheLimit() throws {
        let test = try server()
        defer { test.removeFiles() }
        let client = try test.client()
        for tenant in ["alpha", "beta"] {
            try E2E.addMock(client, tenant: tenant, method: "POST", url: "/up", body: "ok")
        }
        // 12 rows of 60,000 bytes (about 720,000 bytes of the 1,000,000) each, alpha's cleared in between.
        for _ in 0..<12 { XCTAssertEqual(try upload(client, tenant: "alpha"), 200) }
        try waitForRetention(client, "alpha's rows counted") { (JSONNumber.int($0["journalBytes"]) ?? 0) >= 12 * 60_000 }
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("alpha")).status, 200)
        try waitForRetention(client, "alpha's cleared rows no longer counted") { (JSONNumber.int($0["journalBytes"]) ?? .max) < 60_000 }
        for _ in 0..<12 { XCTAssertEqual(try upload(client, tenant: "beta"), 200) }
        try waitForRetention(client, "beta's rows counted") { (JSONNumber.int($0["journalBytes"]) ?? 0) >= 12 * 60_000 }
        XCTAssertEqual(try pruned(client), 0, "nothing was over the limit")
        XCTAssertEqual(try E2E.journal(client, tenant: "beta").count, 12, "beta keeps every row")
    }

    /// A journal row's bytes as docs/operations.md#retention defines them, in SQL: its texts (as
    /// UTF-8 bytes) and blobs plus 64.
    private static let rowBytesSQL: String = {
        let texts = ["time", "tenant", "method", "url", "request_headers", "response_headers", "near_misses_copy", "problem", "file_path"]
            .map { "ifnull(length(CAST(\($0) AS BLOB)), 0)" }
        return (["64"] + texts + ["ifnull(length(request_body), 0)", "ifnull(length(response_body), 0)"]).joined(separator: " + ")
    }()

    /// The journal's bytes as docs/operations.md#retention defines them, summed by SQL over the
    /// whole file: each row's bytes (``rowBytesSQL``), each shared body once.
    private func bytesInFile(_ test: TestServer) throws -> Int {
        let db = try Database(path: test.databasePath, mode: .readOnly)
        defer { db.close() }
        let sum = try db.query(
            "SELECT (SELECT ifnull(sum(\(Self.rowBytesSQL)), 0) FROM journal_rows) + (SELECT ifnull(sum(length(body)), 0) FROM journal_bodies)")
        return Int(sum.first?[0].intValue ?? -1)
    }

    /// How many of tenant flood's rows fit in ``limit`` beside everything else in the journal
    /// (the other tenants' rows, the shared bodies), read from the file: the pruning keeps each
    /// tenant's newest rows that fit in its share (docs/operations.md#retention), and flood, the
    /// only tenant over its share, gets the rest of the limit. Its rows are all the same size
    /// (one URL, headers and body size, the response body shared): `sameSize` says whether they
    /// are.
    private func floodRowsThatFit(_ test: TestServer) throws -> (rows: Int, sameSize: Bool) {
        let db = try Database(path: test.databasePath, mode: .readOnly)
        defer { db.close() }
        let flood = try XCTUnwrap(
            try db.query("SELECT min(\(Self.rowBytesSQL)), max(\(Self.rowBytesSQL)) FROM journal_rows WHERE tenant = 'flood'").first)
        let rowBytes = try XCTUnwrap(flood[0].intValue)
        let rest = try db.query(
            """
            SELECT (SELECT ifnull(sum(\(Self.rowBytesSQL)), 0) FROM journal_rows WHERE tenant <> 'flood')
                + (SELECT ifnull(sum(length(body)), 0) FROM journal_bodies)
            """)
        let others = try XCTUnwrap(rest.first?[0].intValue)
        return ((Self.limit - Int(others)) / Int(rowBytes), flood[1].intValue == rowBytes)
    }

    /// Waits (at most 20 s) until the count `/catbird/api/info` shows is the file's bytes, read
    /// after the traffic stopped; fails with both when it never is.
    private func waitForExactCount(_ test: TestServer, _ client: RawHTTPClient, _ what: String, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(20)
        var counted: Int?
        var inFile = -1
        repeat {
            counted = JSONNumber.int(try retention(client)["journalBytes"])
            inFile = try bytesInFile(test)
            if counted == inFile { return }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        XCTFail("\(what): counted \(counted.map(String.init) ?? "nil"), the file holds \(inFile)", line: line)
    }

    /// The count is the journal's bytes exactly, however its rows came: rows in the file when
    /// the server started (read by SQL over the first passes) and rows the journal writer
    /// counted as it committed them (from the values it bound); rows holding their response
    /// body and rows pointing at a shared one (`journal_bodies`, counted once), 404s with near
    /// misses, headers with non-ASCII bytes, two tenants; then a journal clear taking its rows'
    /// bytes off. Nothing is over the limit, so nothing is pruned.
    func testTheCountIsTheJournalsBytesExactlyAcrossARestartSharedBodiesAndAClear() throws {
        let test = try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: nil, journalMaxBytes: 1 << 30)
            settings.retentionInterval = .milliseconds(100)
        }
        defer { test.removeFiles() }
        var client = try test.client()
        func traffic(_ round: Int) throws {
            try E2E.addMock(client, tenant: "alpha", url: "/shared", body: String(repeating: "s", count: 300))
            try E2E.addMock(client, tenant: "beta", method: "POST", url: "/up", body: "ok")
            for index in 0..<6 {
                let headers = E2E.tenantHeader("alpha") + [("X-Note", "café ✓ \(round)-\(index)")]
                XCTAssertEqual(try client.request("GET", "/shared", headers: headers).status, 200)
            }
            for index in 0..<4 {
                let body = Array("{\"n\": \(index), \"text\": \"ünïcode\"}".utf8)
                XCTAssertEqual(try client.request("POST", "/up", headers: E2E.tenantHeader("beta"), body: body).status, 200)
                XCTAssertEqual(try client.request("POST", "/upp/\(index)", headers: E2E.tenantHeader("beta"), body: body).status, 404)
            }
        }
        // Reading both journals makes the writer commit what it holds first, so the counts below
        // compare every row of the round, not a moment before its last batch.
        func committed() throws {
            _ = try E2E.journal(client, tenant: "alpha")
            _ = try E2E.journal(client, tenant: "beta")
        }
        try traffic(0)
        try committed()
        try waitForExactCount(test, client, "rows the writer counted")
        try test.restart()
        client = try test.client()
        try waitForExactCount(test, client, "rows in the file at start, read by SQL")
        try traffic(1)
        try committed()
        try waitForExactCount(test, client, "both")
        let rows = try Database(path: test.databasePath, mode: .readOnly).query("SELECT count(*) FROM journal_rows")
        XCTAssertEqual(rows.first?[0].intValue, 28, "both rounds' 14 rows each are in the file")
        let shared = try Database(path: test.databasePath, mode: .readOnly).query("SELECT count(*) FROM journal_bodies")
        XCTAssertGreaterThan(shared.first?[0].intValue ?? 0, 0, "the repeated 300-byte body is stored once, in journal_bodies")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("beta")).status, 200)
        try waitForExactCount(test, client, "after beta's journal was cleared")
        XCTAssertEqual(try pruned(client), 0, "nothing was over the limit")
    }
}
