@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The near-miss search counts the header and body fields all mocks of a catalog group or block
/// have (``SharedField``, docs/matching.md#near-misses) in its bounds, so a table whose mocks all
/// carry a field the request differs from is no longer compared mock by mock (tester finding
/// try8b F4: 100,000 mocks `equal "/many/<i>"` with `X-Some-Header: wildcard "*abc*"`, a miss
/// without that header compared all of them, 12-18 ms of a shared worker each time). The
/// search's answer stays that of comparing every mock: same three, same order, same distances.
final class NearMissSharedFieldTests: StorageTestCase {
    private typealias Miss = NearMissTestRequest

    private func exhaustive(_ mocks: MockStore, tenant: TenantID, _ miss: Miss) -> [(id: Int64, distance: Double)] {
        mocks.exhaustiveNearMisses(tenant: tenant, miss)
    }

    /// The search without its time limit (nor a budget), so what it proves does not depend on
    /// the machine's load: under load a 50 ms limit cut the generated tables' search short
    /// ("search not complete"). The bounds alone must give the exhaustive answer.
    private func search(_ mocks: MockStore, tenant: TenantID, _ miss: Miss) -> NearMissReport {
        mocks.nearMisses(
            tenant: tenant, method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body, timeLimit: nil)
    }

    /// try8b F4's table (20,000 of its mocks, written into the file before the store loads it):
    /// a miss without the header, or with it differing, compares no more than one block of mocks,
    /// and reports what comparing all 20,000 gives.
    func testTheTestersTableIsNotComparedMockByMock() throws {
        let mocks = try mockStore("many.sqlite") { database in
            try database.run(
                "INSERT INTO tenants (id, created_at, last_activity_at) VALUES ('mm', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z')")
            try database.run("""
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 20000 - 1)
                INSERT INTO mocks (tenant, position, method, url_kind, url_value, header_patterns, status, response_headers,
                                   response_body, hits, created_at)
                SELECT 'mm', i + 1, 'GET', 'equal', '/many/' || i, '{"X-Some-Header":{"kind":"wildcard","value":"*abc*"}}', 200,
                       '{}', CAST('{"id":' || i || '}' AS BLOB), 0, '2026-12-01T00:00:00.000Z' FROM n
                """)
        }
        let tenant = TenantID("mm")
        XCTAssertEqual(mocks.mocks(of: tenant).count, 20_000)
        let misses = [
            Miss(method: "GET", target: "/zzz", headers: [:], body: []),
            Miss(method: "GET", target: "/zzz", headers: ["x-some-header": "nope"], body: []),
            Miss(method: "GET", target: "/many/123456", headers: [:], body: []),
            Miss(method: "POST", target: "/many/12", headers: ["x-some-header": "xabcx"], body: []),
        ]
        for miss in misses {
            let report = search(mocks, tenant: tenant, miss)
            let expected = exhaustive(mocks, tenant: tenant, miss)
            XCTAssertEqual(report.closest.map(\.mock.id), expected.map(\.id), "\(miss)")
            XCTAssertEqual(report.closest.map(\.distance), expected.map(\.distance), "\(miss)")
            XCTAssertTrue(report.complete, "\(miss)")
            XCTAssertNil(report.cutShort, "\(miss)")
            XCTAssertLessThanOrEqual(report.compared, NearMissCatalog.blockSize, "\(miss): compared \(report.compared) of 20,000")
        }
        // Without the header the urls decide: the shortest ones, earlier position first.
        XCTAssertEqual(
            search(mocks, tenant: tenant, misses[0]).closest.map(\.mock.pattern.source.url.value), ["/many/0", "/many/1", "/many/2"])
    }

    /// Generated tables (several seeds) of a shard and of the default tenant whose mocks share
    /// header and body fields in some groups and blocks and not in others, urls from a small
    /// alphabet of few lengths (ties abound), some wildcard urls that match a target: for
    /// generated misses, the search reports what comparing every mock reports.
    func testGeneratedTablesGetTheSameThreeAsComparingEveryMock() throws {
        for seed: UInt64 in [1, 2, 3, 4, 5] {
            var random = SeededRandom(seed: seed)
            let alphabet = Array("ab1/".utf8)
            func text(_ length: Int) -> String {
                String(decoding: (0..<length).map { _ in random.pick(alphabet) }, as: UTF8.self)
            }
            let mocks = try mockStore("seed\(seed).sqlite")
            let shard = TenantID("shard")
            for (tenant, count) in [(shard, 300), (TenantID.defaultTenant, 60)] {
                for _ in 0..<count {
                    let length = random.pick([3, 5, 8])
                    let url: PatternMatch = random.chance(15) ? .wildcard("/w" + text(length - 2) + "*") : .equal("/" + text(length - 1))
                    // Fields shared by urls of one length more often than not, so whole groups and blocks share them.
                    var headers: [String: PatternMatch] = switch (length + (random.chance(70) ? 0 : random.below(4))) % 4 {
                    case 0: [:]
                    case 1: ["X-A": .equal("1")]
                    case 2: ["X-A": .equal("1"), "X-B": .wildcard("*abc*")]
                    default: ["X-A": .wildcard("*2*"), "X-C": .equal("c")]
                    }
                    if random.chance(20) { headers["X-B"] = random.pick([.equal("1"), .equal("abc"), .regexp("^x.c")]) }
                    let body: BodyPattern? = random.chance(25)
                        ? BodyPattern(kind: .contains, value: "zz") : random.chance(10) ? BodyPattern(kind: .equal, value: "hello") : nil
                    let pattern = RequestPattern(method: random.chance(75) ? .GET : .POST, url: url, headers: headers, body: body)
                    _ = try mocks.update(pattern, response: ResponseMock(status: 200), tenant: tenant)
                }
            }
            var checked = 0
            for round in 0..<80 {
                let target = random.chance(15) ? "/w" + text(random.pick([1, 3, 6])) : "/" + text(random.pick([2, 4, 7, 11]))
                var headers: [String: String] = [:]
                for name in ["x-a", "x-b", "x-c"] where random.chance(50) {
                    headers[name] = random.pick(["1", "2", "xabcx", "c", "no"])
                }
                let miss = Miss(
                    method: random.pick(["GET", "GET", "POST", "PUT"]), target: target, headers: headers,
                    body: Array(random.pick(["", "zz", "hello", "xzzx"]).utf8))
                let tenant = random.chance(80) ? shard : TenantID.defaultTenant
                let owners = tenant.isDefault ? [tenant] : [tenant, .defaultTenant]
                // A request some mock answers is no miss.
                guard !owners.contains(where: { owner in
                    mocks.mocks(of: owner).contains {
                        $0.pattern.matches(method: miss.method, target: miss.target, headerValue: miss.headerValue, body: miss.body)
                    }
                }) else { continue }
                let report = search(mocks, tenant: tenant, miss)
                let expected = exhaustive(mocks, tenant: tenant, miss)
                XCTAssertEqual(report.closest.map(\.mock.id), expected.map(\.id), "seed \(seed) round \(round): \(miss)")
                XCTAssertEqual(report.closest.map(\.distance), expected.map(\.distance), "seed \(seed) round \(round): \(miss)")
                XCTAssertTrue(report.complete, "seed \(seed) round \(round)")
                XCTAssertNil(report.cutShort, "seed \(seed) round \(round)")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 40, "seed \(seed): most generated requests are misses")
        }
    }
}
