import CatbirdDomain
import CatbirdTestSupport
import Foundation
import XCTest

/// The journal's byte limit with response bodies stored once (docs/operations.md#retention,
/// docs/schema.md#response-bodies-stored-once): a tenant's stored-once bodies count in its
/// share, so the limit trims the tenants over their share, oldest rows first, and keeps each
/// tenant's newest rows that fit.
final class JournalByteLimitSharedBodiesTests: XCTestCase {
    /// 1,000,000 bytes: about 45 rows with a 20,000-byte body beside the rest.
    private static let limit = 1_000_000

    private func server() throws -> TestServer {
        try TestServer { settings in
            settings.retention = RetentionPolicy(tenantTTL: nil, journalMaxRows: nil, journalMaxAge: nil, journalMaxBytes: Self.limit)
            settings.retentionInterval = .seconds(1)
        }
    }

    /// A distinct 20,000-byte text body: lowercase letters from a generator seeded by `seed`.
    private func body(_ seed: Int) -> String {
        var state = UInt64(seed + 1) &* 6_364_136_223_846_793_005
        return String((0..<20_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
        })
    }

    /// Each tenant's journal ids once the limit pruned rows, the journal is within it, and two
    /// readings a pass apart agree (or after 30 s).
    private func settledJournals(_ client: RawHTTPClient, _ tenants: [String?]) throws -> [[Int]] {
        let deadline = Date().addingTimeInterval(30)
        var previous: [[Int]] = []
        while true {
            let info = try client.request("GET", "/catbird/api/info").object["retention"] as? [String: Any] ?? [:]
            let pruned = JSONNumber.int((info["pruned"] as? [String: Any])?["journalRowsOverBytes"]) ?? 0
            let within = pruned > 0 && (JSONNumber.int(info["journalBytes"]) ?? .max) <= Self.limit
            let journals = try tenants.map { tenant in
                try E2E.journal(client, tenant: tenant).compactMap { JSONNumber.int($0["id"]) }.sorted()
            }
            if within && journals == previous || Date() > deadline { return journals }
            previous = within ? journals : []
            Thread.sleep(forTimeInterval: 1.2)
        }
    }

    /// Regression (tester finding tester34b-F9, scaled down): a tenant whose app reloads a set
    /// of large resources (60 distinct 20,000-byte bodies, each loaded 6 times) lost its whole
    /// journal under a limit its newest rows fit in many times over: each body's second and
    /// later loads point at one stored copy, which counted toward the total only, so the tenant
    /// was cut to nothing while the total stayed over. Now its oldest rows go until the journal
    /// fits, and its newest ones stay; another tenant's few rows stay too.
    func testATenantReloadingLargeBodiesKeepsItsNewestRows() throws {
        let test = try server()
        defer { test.removeFiles() }
        let client = try test.client()
        for index in 0..<10 { _ = try client.request("GET", "/small/\(index)", headers: E2E.tenantHeader("B")) }
        for index in 0..<60 { try E2E.addMock(client, tenant: "A", url: "/img/\(index)", body: body(index)) }
        for _ in 0..<6 {
            for index in 0..<60 {
                XCTAssertEqual(try client.request("GET", "/img/\(index)", headers: E2E.tenantHeader("A")).status, 200)
            }
        }
        let journals = try settledJournals(client, ["A", "B"])
        XCTAssertEqual(journals[1].count, 10, "B's rows, within its share, stay")
        XCTAssertGreaterThanOrEqual(journals[0].count, 30, "A keeps the newest rows that fit: \(journals[0])")
        XCTAssertLessThan(journals[0].count, 360, "A's oldest rows went")
        let newest = try XCTUnwrap(journals[0].last)
        XCTAssertEqual(journals[0], Array((newest - journals[0].count + 1)...newest), "A's newest rows, without gaps")
    }

    /// Regression (tester finding tester34b-F10, scaled down): shards loading the same shared
    /// fixtures (30 default-tenant mocks of 20,000 bytes, each shard loading them twice, one
    /// shard after another) under a byte limit: the shards that ran last lost their whole
    /// journal while the first kept its rows, since each shard's second loads point at stored
    /// copies counted toward no tenant. Now every shard keeps its newest rows, about as many
    /// as the others.
    func testShardsLoadingSharedFixturesEachKeepTheirNewestRows() throws {
        let test = try server()
        defer { test.removeFiles() }
        let client = try test.client()
        for index in 0..<30 { try E2E.addMock(client, url: "/fixture/\(index)", body: body(100 + index)) }
        let shards = (0..<4).map { "shard-\($0)" }
        for shard in shards {
            for _ in 0..<2 {
                for index in 0..<30 {
                    XCTAssertEqual(try client.request("GET", "/fixture/\(index)", headers: E2E.tenantHeader(shard)).status, 200)
                }
            }
        }
        let journals = try settledJournals(client, shards)
        let counts = journals.map(\.count)
        XCTAssertGreaterThanOrEqual(counts.min() ?? 0, 5, "every shard keeps its newest rows: \(counts)")
        XCTAssertLessThanOrEqual((counts.max() ?? 0) - (counts.min() ?? 0), 3, "the shards keep about as many: \(counts)")
        for journal in journals {
            let newest = try XCTUnwrap(journal.last)
            XCTAssertEqual(journal, Array((newest - journal.count + 1)...newest), "each shard's newest rows, without gaps")
        }
    }
}
