import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `find(matching:…)` and body matchers from the client: a mock chosen by its body, and the
/// journal searched by body, through a real server.
final class FindTests: CatbirdTestCase {
    func testBodyMatchersChooseTheMockAndFindTheRequests() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("find-1")
        let john = RequestPattern(method: .POST, url: "/login", body: .jsonPath("$.login", equalTo: "john"))
        try catbird.send(.update(john, ResponseMock(status: 200, body: Data("welcome john".utf8))))
        try catbird.send(.update(
            RequestPattern(method: .POST, url: "/login", body: .json(#"{"login": "ann"}"#)),
            ResponseMock(status: 201, body: Data("welcome ann".utf8))))

        let start = Date()
        let served = try server.appRequest("POST", "/login", parallelId: "find-1", body: #"{"password":"x","login":"john"}"#)
        XCTAssertEqual(served.text, "welcome john")
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "find-1", body: #"{ "login" : "ann" }"#).status, 201)
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "find-1", body: #"{"login":"john"}"#).status, 200)

        let page = try catbird.find(matching: john, limit: 1)
        XCTAssertEqual(page.requests.map { $0.request.bodyText }, [#"{"password":"x","login":"john"}"#])
        XCTAssertTrue(page.hasMore)
        let next = try catbird.find(matching: john, since: page.nextSince)
        XCTAssertEqual(next.requests.map { $0.request.bodyText }, [#"{"login":"john"}"#])
        XCTAssertEqual(try catbird.count(matching: john), 2)
        XCTAssertEqual(try catbird.find(matching: john, from: start.addingTimeInterval(-60)).requests.count, 2)
        XCTAssertEqual(try catbird.find(matching: john, until: start.addingTimeInterval(-60)).requests.count, 0)
        XCTAssertEqual(try server.catbird("find-2").find(matching: john).requests.count, 0, "another tenant's journal")

        assertCatbirdError(400, try catbird.find(matching: RequestPattern(method: .POST, url: "/login", body: .jsonPath("login"))))
    }

    func testFindAsync() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        _ = try server.appRequest("PUT", "/items/1", body: "name=bolt&size=7")
        let page = try await catbird.find(matching: RequestPattern(method: .PUT, url: PatternMatch.wildcard("/items/*"), body: .contains("size=7")))
        XCTAssertEqual(page.requests.map(\.url), ["/items/1"])
    }

    /// `find(matching:)` and `unmatched()` without a `limit` read every page, as the README's
    /// `find(…).requests.count` and `unmatched().requests.count` checks assume: 150 unmatched
    /// requests with 64 KiB bodies fill several 4 MiB pages (tester finding tester22a-F19: both
    /// returned the first page only, 27 entries with `hasMore` true).
    func testFindAndUnmatchedWithoutALimitReadEveryPage() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let body = String(repeating: "x", count: 64 * 1024)
        for index in 0..<150 {
            try server.appRequest("POST", "/bb/\(index)", parallelId: "bigb", headers: [("Content-Type", "text/plain")], body: body)
        }
        let catbird = server.catbird("bigb")
        let pattern = RequestPattern(method: .POST, url: PatternMatch.wildcard("/bb/*"))

        let found = try catbird.find(matching: pattern)
        XCTAssertEqual(found.requests.count, 150)
        XCTAssertEqual(found.requests.map(\.url), (0..<150).map { "/bb/\($0)" })
        XCTAssertFalse(found.hasMore)
        XCTAssertEqual(found.nextSince, found.requests.last?.id)
        let unmatched = try catbird.unmatched()
        XCTAssertEqual(unmatched.requests.count, 150)
        XCTAssertFalse(unmatched.hasMore)

        // With a limit, one page as before.
        let page = try catbird.find(matching: pattern, limit: 10)
        XCTAssertEqual(page.requests.count, 10)
        XCTAssertTrue(page.hasMore)
        let rest = try catbird.find(matching: pattern, since: page.nextSince)
        XCTAssertEqual(rest.requests.count, 140)
        XCTAssertEqual(try catbird.unmatched(limit: 5).requests.count, 5)
    }

    /// The async forms read every page too (tester22a-F19).
    func testFindAndUnmatchedWithoutALimitReadEveryPageAsync() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let body = String(repeating: "y", count: 64 * 1024)
        for index in 0..<150 {
            try server.appRequest("POST", "/bb/\(index)", parallelId: "bigb", body: body)
        }
        let catbird = server.catbird("bigb")
        let found = try await catbird.find(matching: RequestPattern(method: .POST, url: PatternMatch.wildcard("/bb/*")))
        XCTAssertEqual(found.requests.count, 150)
        XCTAssertFalse(found.hasMore)
        let unmatched = try await catbird.unmatched()
        XCTAssertEqual(unmatched.requests.count, 150)
    }
}
