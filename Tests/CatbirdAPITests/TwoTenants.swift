import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// A real server with mocks and journaled requests in three tenants: P (an id that must be
/// percent-encoded in a path), Q, and the default tenant.
///
/// - P: mocks `GET /api/feed` (limit 3) and `POST /api/createPost`; requests `GET /api/feed`
///   (mock), `POST /api/createPost` with a JSON body (mock), `GET /missing?x=1` (404).
/// - Q: mock `GET /api/feed` (another body, no limit); requests `GET /api/feed` twice.
/// - default: mock `GET /api/shared`; request `GET /api/shared`.
final class TwoTenants {
    static let pId = "shard/P?1% x"
    static let qId = "shard-Q"

    static let feed = RequestPattern(method: .GET, url: "/api/feed")
    static let createPost = RequestPattern(method: .POST, url: "/api/createPost", headers: ["Content-Type": PatternMatch.wildcard("application/json*")])
    static let shared = RequestPattern(method: .GET, url: "/api/shared")
    static let pFeedBody = Data(#"{"posts":["p"]}"#.utf8)
    static let qFeedBody = Data(#"{"posts":["q"]}"#.utf8)
    static let postBody = #"{"text":"hi"}"#

    let server: TestServer
    let p: Catbird
    let q: Catbird
    let admin: Catbird
    let startedAt = Date()

    init() throws {
        server = try TestServer()
        p = server.catbird(Self.pId)
        q = server.catbird(Self.qId)
        admin = server.catbird()

        try p.send(.update(Self.feed, ResponseMock(status: 200, headers: ["Content-Type": "application/json"], body: Self.pFeedBody, limit: 3)))
        try p.send(.update(Self.createPost, ResponseMock(status: 201, body: Data("created".utf8))))
        try q.send(.update(Self.feed, ResponseMock(status: 200, body: Self.qFeedBody)))
        try admin.send(.update(Self.shared, ResponseMock(status: 200, body: Data("shared".utf8))))

        XCTAssertEqual(try server.appRequest("GET", "/api/feed", parallelId: Self.pId).status, 200)
        XCTAssertEqual(
            try server.appRequest(
                "POST", "/api/createPost", parallelId: Self.pId, headers: [("Content-Type", "application/json")], body: Self.postBody
            ).status, 201)
        XCTAssertEqual(try server.appRequest("GET", "/missing?x=1", parallelId: Self.pId).status, 404)
        XCTAssertEqual(try server.appRequest("GET", "/api/feed", parallelId: Self.qId).text, #"{"posts":["q"]}"#)
        XCTAssertEqual(try server.appRequest("GET", "/api/feed", parallelId: Self.qId).status, 200)
        XCTAssertEqual(try server.appRequest("GET", "/api/shared").status, 200)
    }

    deinit {
        server.removeFiles()
    }

    // MARK: - Expectations shared by the sync and async tests

    func checkMocks(p pMocks: [CatbirdMock], q qMocks: [CatbirdMock], admin adminMocks: [CatbirdMock], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(pMocks.map(\.pattern), [Self.feed, Self.createPost], file: file, line: line)
        XCTAssertEqual(qMocks.map(\.pattern), [Self.feed], file: file, line: line)
        XCTAssertEqual(adminMocks.map(\.pattern), [Self.shared], file: file, line: line)
        guard pMocks.count == 2, qMocks.count == 1 else { return }
        let feed = pMocks[0]
        XCTAssertLessThan(feed.position, pMocks[1].position, file: file, line: line)
        XCTAssertEqual(feed.response.body, Self.pFeedBody, file: file, line: line)
        XCTAssertEqual(feed.response.headers, ["Content-Type": "application/json"], file: file, line: line)
        XCTAssertEqual(feed.remainingLimit, 2, "limit 3, one hit", file: file, line: line)
        XCTAssertEqual(feed.hits, 1, file: file, line: line)
        XCTAssertEqual(pMocks[1].response.status, 201, file: file, line: line)
        XCTAssertNil(qMocks[0].remainingLimit, file: file, line: line)
        XCTAssertEqual(qMocks[0].hits, 2, file: file, line: line)
        XCTAssertEqual(qMocks[0].response.body, Self.qFeedBody, file: file, line: line)
        XCTAssertEqual(Set((pMocks + qMocks + adminMocks).map(\.id)).count, 4, "ids are unique", file: file, line: line)
        for mock in pMocks + qMocks + adminMocks { checkRecent(mock.createdAt, file: file, line: line) }
    }

    func checkJournal(p page: CatbirdRequestPage, q qPage: CatbirdRequestPage, pMocks: [CatbirdMock], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(page.hasMore, file: file, line: line)
        XCTAssertEqual(page.requests.map(\.url), ["/api/feed", "/api/createPost", "/missing?x=1"], file: file, line: line)
        XCTAssertEqual(page.nextSince, page.requests.last?.id, file: file, line: line)
        XCTAssertEqual(Set(page.requests.map(\.tenant)), [Self.pId], file: file, line: line)
        XCTAssertEqual(qPage.requests.map(\.url), ["/api/feed", "/api/feed"], file: file, line: line)
        XCTAssertEqual(Set(qPage.requests.map(\.tenant)), [Self.qId], file: file, line: line)
        guard page.requests.count == 3 else { return }
        let (feed, post, missing) = (page.requests[0], page.requests[1], page.requests[2])
        XCTAssertLessThan(feed.id, post.id, file: file, line: line)
        XCTAssertEqual(feed.method, .GET, file: file, line: line)
        XCTAssertEqual(feed.answeredBy, .mock, file: file, line: line)
        XCTAssertEqual(feed.mockId, pMocks.first?.id, file: file, line: line)
        XCTAssertEqual(feed.response.status, 200, file: file, line: line)
        XCTAssertEqual(feed.response.body, Self.pFeedBody, file: file, line: line)
        XCTAssertEqual(feed.response.header("content-type"), "application/json", file: file, line: line)
        XCTAssertNil(feed.request.status, file: file, line: line)
        XCTAssertEqual(feed.request.header(CatbirdAction.parallelIdHeaderField), Self.pId, file: file, line: line)

        XCTAssertEqual(post.method, .POST, file: file, line: line)
        XCTAssertEqual(post.request.body, Data(Self.postBody.utf8), file: file, line: line)
        XCTAssertEqual(post.request.bodyText, Self.postBody, file: file, line: line)
        XCTAssertEqual(post.request.bodySize, Self.postBody.utf8.count, file: file, line: line)
        XCTAssertFalse(post.request.bodyTruncated, file: file, line: line)
        XCTAssertEqual(post.request.header("Content-Type"), "application/json", file: file, line: line)
        XCTAssertEqual(post.response.status, 201, file: file, line: line)
        XCTAssertEqual(post.response.bodyText, "created", file: file, line: line)
        XCTAssertEqual(post.mockId, pMocks.last?.id, file: file, line: line)

        XCTAssertEqual(missing.answeredBy, .unanswered, file: file, line: line)
        XCTAssertEqual(missing.answeredBy.rawValue, "none", file: file, line: line)
        XCTAssertNil(missing.mockId, file: file, line: line)
        XCTAssertEqual(missing.response.status, 404, file: file, line: line)
        XCTAssertEqual(missing.request.body, Data(), file: file, line: line)
        XCTAssertEqual(missing.request.bodySize, 0, file: file, line: line)
        for entry in page.requests + qPage.requests {
            checkRecent(entry.time, file: file, line: line)
            XCTAssertGreaterThanOrEqual(entry.durationMs, 0, file: file, line: line)
        }
    }

    /// `date` lies between the scenario's start (less a second for clock rounding) and now.
    func checkRecent(_ date: Date, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(date, startedAt.addingTimeInterval(-1), file: file, line: line)
        XCTAssertLessThanOrEqual(date, Date().addingTimeInterval(1), file: file, line: line)
    }
}
