import CatbirdTestSupport
import Foundation
import XCTest

/// `GET /catbird/api/tenants` is bounded by the page, not by how many tenants the server holds
/// (tester finding T11-F3: 248,909 tenants, one per `X-Catbird-Parallel-Id` as the README's
/// `Catbird(parallelId: UUID().uuidString)` per test makes them, were listed whole on every
/// call, a shard's own row included; 34.5 MB answers, and the server's memory at 814 MB). Scaled
/// to 2,500 tenants made the finding's way, by a journaled request each.
final class TenantListingPageTests: XCTestCase {
    private static let tenantCount = 2_500

    /// Makes `count` tenants `tenant-0` … by one request each (a 404 journaled in its tenant).
    private func makeTenants(_ client: RawHTTPClient, count: Int) throws {
        for index in 0..<count {
            XCTAssertEqual(try client.request("GET", "/t11ten", headers: E2E.tenantHeader("tenant-\(index)")).status, 404)
        }
    }

    private func ids(_ answer: RawResponse) -> [String] {
        (answer.object["tenants"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    func testTheAdminListingIsPagedAndAShardGetsItsOwnRow() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try makeTenants(client, count: Self.tenantCount)
        let every = ([""] + (0..<Self.tenantCount).map { "tenant-\($0)" }).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        // The shard's row: its own, with its count, and nothing else.
        let own = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("tenant-5-1"))
        XCTAssertEqual(own.status, 200)
        XCTAssertEqual(ids(own), [], "tenant-5-1 has no row yet")
        let shard = try client.request("GET", "/catbird/api/tenants", headers: E2E.tenantHeader("tenant-5"))
        XCTAssertEqual(ids(shard), ["tenant-5"])
        XCTAssertEqual((shard.object["tenants"] as? [[String: Any]])?.first?["requests"] as? Int, 1)
        XCTAssertEqual(shard.object["admin"] as? Bool, false)
        XCTAssertEqual(shard.object["hasMore"] as? Bool, false)

        // The admin's listing: the first 1,000 by id, saying there are more and where to go on.
        let first = try client.request("GET", "/catbird/api/tenants")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(ids(first), Array(every.prefix(1000)))
        XCTAssertEqual(first.object["hasMore"] as? Bool, true)
        XCTAssertEqual(first.object["nextAfter"] as? String, every[999])
        XCTAssertEqual(first.object["admin"] as? Bool, true)

        // Paging on from nextAfter lists every tenant once, in order.
        var listed: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let query = "limit=700" + (after.map { "&after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? "")
            let page = try client.request("GET", "/catbird/api/tenants?\(query)")
            XCTAssertEqual(page.status, 200, page.text)
            XCTAssertLessThanOrEqual(ids(page).count, 700)
            listed += ids(page)
            after = page.object["hasMore"] as? Bool == true ? page.object["nextAfter"] as? String : nil
            pages += 1
        } while after != nil && pages < 10
        XCTAssertEqual(listed, every)
        XCTAssertEqual(pages, 4, "2,501 tenants in pages of 700")

        // A prefix: one range of the ids.
        let prefixed = try client.request("GET", "/catbird/api/tenants?prefix=tenant-249")
        XCTAssertEqual(ids(prefixed), every.filter { $0.hasPrefix("tenant-249") })
        XCTAssertEqual(prefixed.object["hasMore"] as? Bool, false)
        XCTAssertEqual(ids(try client.request("GET", "/catbird/api/tenants?prefix=tenant-249&after=tenant-2495")),
                       ["tenant-2496", "tenant-2497", "tenant-2498", "tenant-2499"])
    }

    func testAFewTenantsKeepTheWholeListInOneAnswer() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try makeTenants(client, count: 3)
        let answer = try client.request("GET", "/catbird/api/tenants")
        XCTAssertEqual(ids(answer), ["", "tenant-0", "tenant-1", "tenant-2"])
        XCTAssertEqual(answer.object["hasMore"] as? Bool, false)
        XCTAssertNil(answer.object["nextAfter"], "no page comes after the last")
    }

    func testALimitOutOfRangeIsRefused() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for limit in ["0", "1001", "ten", "-1"] {
            let answer = try client.request("GET", "/catbird/api/tenants?limit=\(limit)")
            XCTAssertEqual(answer.status, 400, limit)
            XCTAssertEqual(answer.object["reason"] as? String, "'limit' must be a whole number from 1 to 1000, not \"\(limit)\"")
        }
    }
}
