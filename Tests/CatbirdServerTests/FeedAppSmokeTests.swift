import CatbirdTestSupport
import Foundation
import XCTest

/// The FeedApp example (the stand-in app under test) against a real server: it must find
/// Catbird through its launch arguments or environment (CatbirdAppSupport), send every request
/// there with the shard's `X-Catbird-Parallel-Id`, and show what the mocks say.
final class FeedAppSmokeTests: ServerTestCase {
    private static let feed = #"{"posts":[{"id":2,"author":"bob","text":"Hi / ünïcode"},{"id":1,"author":"alice","text":"Hello"}]}"#

    func testFeedShowsTheMockedPostsAndIsJournaledForItsTenant() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/feed", responseHeaders: ["Content-Type": "application/json"], body: Self.feed)
        let result = try feedApp(["feed"], parallelId: "s1")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(result.lines, ["Feed", "@bob: Hi / ünïcode", "@alice: Hello"], result.output)

        let entries = try E2E.journal(client, tenant: "s1")
        XCTAssertEqual(entries.map { "\($0["method"] ?? "") \($0["url"] ?? "")" }, ["GET /api/feed"])
        let headers = (entries.first?["request"] as? [String: Any])?["headers"] as? [String: Any]
        XCTAssertEqual(headers?["X-Catbird-Parallel-Id"] as? String, "s1")
        XCTAssertEqual(headers?["Host"] as? String, "127.0.0.1:\(server.port)", "sent to Catbird, not to the production host")
        XCTAssertEqual(entries.first?["answeredBy"] as? String, "mock")
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "nothing landed in the default tenant")
    }

    func testPostSendsJSONThenShowsTheNewFeed() throws {
        try E2E.addMock(client, tenant: "s1", method: "POST", url: "/api/createPost", status: 201,
                        body: #"{"post":{"id":3,"author":"me","text":"My new post"}}"#)
        try E2E.addMock(client, tenant: "s1", url: "/api/feed",
                        body: #"{"posts":[{"id":3,"author":"me","text":"My new post"}]}"#)
        let result = try feedApp(["post", "My new post"], parallelId: "s1")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(result.lines, ["Posted: My new post", "Feed", "@me: My new post"], result.output)

        let rows = try E2E.sqlRows(
            client, "SELECT method, url, CAST(request_body AS TEXT), json_extract(request_headers, '$.Content-Type') FROM requests ORDER BY id",
            tenant: "s1")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.first?.compactMap { $0 as? String }, ["POST", "/api/createPost", #"{"text":"My new post"}"#, "application/json"])
        XCTAssertEqual(rows.last?.prefix(2).compactMap { $0 as? String }, ["GET", "/api/feed"])
    }

    func testLoginShowsTheMainScreenOrTheServersMessage() throws {
        let pattern = (method: "POST", url: "/login")
        try E2E.addMock(client, tenant: "s1", method: pattern.method, url: pattern.url, body: #"{"data":{"access_token":"t0k3n"}}"#)
        let ok = try feedApp(["login", "ann@example.com", "secret"], parallelId: "s1")
        XCTAssertEqual(ok.lines, ["Main Screen"], ok.output)

        try E2E.addMock(client, tenant: "s1", method: pattern.method, url: pattern.url, status: 400,
                        body: #"{"error":{"message":"Wrong password","code":1001}}"#)
        let refused = try feedApp(["login", "ann@example.com", "nope"], parallelId: "s1")
        XCTAssertEqual(refused.status, 0, refused.output)
        XCTAssertEqual(refused.lines, ["Error: Wrong password"], refused.output)

        try E2E.addMock(client, tenant: "s1", method: pattern.method, url: pattern.url, status: 503, body: "down")
        XCTAssertEqual(try feedApp(["login", "ann@example.com", "secret"], parallelId: "s1").lines, ["Error: 503"])

        let bodies = try E2E.sqlRows(client, "SELECT CAST(request_body AS TEXT) FROM requests ORDER BY id", tenant: "s1")
        XCTAssertEqual(bodies.first?.first as? String, #"{"login":"ann@example.com","password":"secret"}"#)
    }

    func testAnUnmockedFeedShowsTheStatusAndTenantsStayApart() throws {
        try E2E.addMock(client, tenant: "s1", url: "/api/feed", body: Self.feed)
        let other = try feedApp(["feed"], parallelId: "s2")
        XCTAssertEqual(other.status, 0, other.output)
        XCTAssertEqual(other.lines, ["Error: 404"], "s2 does not see s1's mock")
        XCTAssertEqual(try E2E.journal(client, tenant: "s2").count, 1)
        XCTAssertEqual(try E2E.journal(client, tenant: "s1").count, 0)
    }

    func testTheEnvironmentWorksAndArgumentsWinOverIt() throws {
        try E2E.addMock(client, tenant: "env", url: "/api/feed", body: #"{"posts":[{"id":1,"author":"env","text":"from the environment"}]}"#)
        try E2E.addMock(client, tenant: "args", url: "/api/feed", body: #"{"posts":[{"id":1,"author":"args","text":"from the arguments"}]}"#)
        let serverURL = "http://127.0.0.1:\(server.port)"

        let fromEnvironment = try feedApp(["feed"], environment: ["CATBIRD_URL": serverURL, "CATBIRD_PARALLEL_ID": "env"])
        XCTAssertEqual(fromEnvironment.lines, ["Feed", "@env: from the environment"], fromEnvironment.output)

        let port = try ChildProcesses.freePort()  // nothing listens there
        let overridden = try feedApp(
            ["-catbird_url", serverURL, "feed", "-catbird_parallel_id", "args"],
            environment: ["CATBIRD_URL": "http://127.0.0.1:\(port)", "CATBIRD_PARALLEL_ID": "env"])
        XCTAssertEqual(overridden.lines, ["Feed", "@args: from the arguments"], overridden.output)
    }

    func testAnUnreachableServerExitsOne() throws {
        let port = try ChildProcesses.freePort()
        let result = try feedApp(["-catbird_url", "http://127.0.0.1:\(port)", "feed"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("GET http://127.0.0.1:\(port)/api/feed failed"), result.output)
    }

    func testBadUsageExitsTwo() throws {
        let result = try feedApp(["-catbird_url", "http://127.0.0.1:1", "dance"])
        XCTAssertEqual(result.status, 2, result.output)
        XCTAssertTrue(result.stderr.contains("usage: FeedApp"), result.output)
    }

    // MARK: - Helpers

    /// Runs the built FeedApp: `-catbird_url <this server> [-catbird_parallel_id id] arguments`,
    /// or just `arguments` when `parallelId` is nil and the URL comes from `arguments` or
    /// `environment`.
    private func feedApp(_ arguments: [String], parallelId: String? = nil, environment: [String: String] = [:]) throws -> ChildProcesses.Result {
        var launch: [String] = []
        if let parallelId {
            launch = ["-catbird_url", "http://127.0.0.1:\(server.port)", "-catbird_parallel_id", parallelId]
        }
        return try ChildProcesses.run(
            try BuiltProducts.executable(named: "FeedApp"), launch + arguments,
            environment: environment, in: server.directory, seconds: 60)
    }
}
