import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `requests(…)`, `allRequests(…)` and `clearJournal()`: each tenant reads and clears its own
/// journal only.
final class JournalTests: CatbirdTestCase {
    func testJournalIsReadPerTenant() throws {
        let scenario = try TwoTenants()
        scenario.checkJournal(p: try scenario.p.requests(), q: try scenario.q.requests(), pMocks: try scenario.p.mocks())
        XCTAssertEqual(try scenario.admin.requests().requests.map(\.url), ["/api/shared"])
        XCTAssertEqual(try scenario.p.allRequests().map(\.url), try scenario.p.requests().requests.map(\.url))
        XCTAssertEqual(try scenario.q.allRequests().count, 2)
    }

    func testJournalIsReadPerTenantAsync() async throws {
        let scenario = try TwoTenants()
        scenario.checkJournal(p: try await scenario.p.requests(), q: try await scenario.q.requests(), pMocks: try await scenario.p.mocks())
        let adminURLs = try await scenario.admin.requests().requests.map(\.url)
        XCTAssertEqual(adminURLs, ["/api/shared"])
        let all = try await scenario.p.allRequests()
        XCTAssertEqual(all.map(\.url), ["/api/feed", "/api/createPost", "/missing?x=1"])
        let qAll = try await scenario.q.allRequests()
        XCTAssertEqual(qAll.count, 2)
    }

    func testFiltersAndPaging() throws {
        let scenario = try TwoTenants()
        let p = scenario.p
        XCTAssertEqual(try p.requests(method: .POST).requests.map(\.url), ["/api/createPost"])
        XCTAssertEqual(try p.requests(url: "/api/").requests.map(\.url), ["/api/feed", "/api/createPost"])
        XCTAssertEqual(try p.requests(url: "?x=1").requests.map(\.url), ["/missing?x=1"], "the filter value is percent-encoded")
        XCTAssertEqual(try p.requests(status: 404).requests.map(\.url), ["/missing?x=1"])
        XCTAssertEqual(try p.requests(answeredBy: .unanswered).requests.map(\.url), ["/missing?x=1"])
        XCTAssertEqual(try p.requests(answeredBy: .mock).requests.count, 2)
        XCTAssertEqual(try p.requests(method: .GET, answeredBy: .mock).requests.map(\.url), ["/api/feed"])
        XCTAssertEqual(try p.allRequests(method: .GET).map(\.url), ["/api/feed", "/missing?x=1"])
        XCTAssertEqual(try scenario.q.requests(status: 404).requests.count, 0, "Q's filters see Q only")

        let first = try p.requests(limit: 2)
        XCTAssertEqual(first.requests.map(\.url), ["/api/feed", "/api/createPost"])
        XCTAssertTrue(first.hasMore)
        XCTAssertEqual(first.nextSince, first.requests.last?.id)
        let second = try p.requests(since: first.nextSince, limit: 2)
        XCTAssertEqual(second.requests.map(\.url), ["/missing?x=1"])
        XCTAssertFalse(second.hasMore)

        assertCatbirdError(400, try p.requests(limit: 0))
    }

    func testFiltersAndPagingAsync() async throws {
        let scenario = try TwoTenants()
        let p = scenario.p
        let posts = try await p.requests(method: .POST).requests.map(\.url)
        XCTAssertEqual(posts, ["/api/createPost"])
        let first = try await p.requests(limit: 2, url: "/")
        XCTAssertTrue(first.hasMore)
        let second = try await p.requests(since: first.nextSince, limit: 2, url: "/")
        XCTAssertEqual((first.requests + second.requests).map(\.url), ["/api/feed", "/api/createPost", "/missing?x=1"])
        let unanswered = try await p.allRequests(answeredBy: .unanswered).map(\.url)
        XCTAssertEqual(unanswered, ["/missing?x=1"])
        await assertCatbirdErrorAsync(400) { try await p.requests(limit: 1001) }
    }

    /// `allRequests` reads past the 1000-entry page.
    func testAllRequestsReadsEveryPage() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<1003 {
            _ = try client.request("GET", "/item/\(index)", headers: [(CatbirdAction.parallelIdHeaderField, "P")])
        }
        try server.appRequest("GET", "/item/q", parallelId: "Q")
        let all = try server.catbird("P").allRequests()
        XCTAssertEqual(all.count, 1003)
        XCTAssertEqual(all.map(\.url), (0..<1003).map { "/item/\($0)" })
        XCTAssertEqual(Set(all.map(\.tenant)), ["P"])
        XCTAssertEqual(try server.catbird("P").allRequests(url: "/item/100").count, 4, "/item/100 and /item/1000…1002")
        XCTAssertEqual(try server.catbird("Q").allRequests().map(\.url), ["/item/q"])
    }

    func testClearJournalClearsOneTenant() throws {
        let scenario = try TwoTenants()
        XCTAssertEqual(try scenario.p.clearJournal(), 3)
        XCTAssertEqual(try scenario.p.requests().requests.count, 0)
        XCTAssertEqual(try scenario.q.requests().requests.count, 2)
        XCTAssertEqual(try scenario.admin.requests().requests.count, 1)
        XCTAssertEqual(try scenario.p.mocks().count, 2, "mocks stay")
        XCTAssertEqual(try scenario.p.clearJournal(), 0)
    }

    func testClearJournalClearsOneTenantAsync() async throws {
        let scenario = try TwoTenants()
        let deleted = try await scenario.q.clearJournal()
        XCTAssertEqual(deleted, 2)
        let qCount = try await scenario.q.requests().requests.count
        let pCount = try await scenario.p.requests().requests.count
        XCTAssertEqual(qCount, 0)
        XCTAssertEqual(pCount, 3)
    }
}
