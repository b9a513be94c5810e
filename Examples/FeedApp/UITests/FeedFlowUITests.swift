import CatbirdAPI
import XCTest

/// The feed flow: the feed shows the mock's posts; after creating a post the test swaps the
/// feed mock for one containing it, and the app shows it.
final class FeedFlowUITests: FeedAppUITestCase {
    private var alice: Post { Post(id: 1, author: "alice", text: "Hello from \(shard)") }
    private var bob: Post { Post(id: 2, author: "bob", text: "Second post in \(shard)") }

    func testFeedShowsThePostsOfTheMock() throws {
        try catbird.send(.add(FeedMock.posts([bob, alice])))

        XCTAssertEqual(try launchApp("feed"), ["Feed", "@bob: \(bob.text)", "@alice: \(alice.text)"])

        let loads = try journaled(.GET, "/api/feed")
        XCTAssertEqual(loads.count, 1)
        XCTAssertEqual(loads.first?.request.header("X-Catbird-Parallel-Id"), shard)
        XCTAssertEqual(loads.first?.answeredBy, .mock)
    }

    func testTheTestWaitsForTheFeedRequestWhileTheAppRuns() throws {
        try catbird.send(.add(FeedMock.posts([alice])))
        let app = try startApp(["feed"])

        // As a UI test waits for a request the app sends on its own schedule.
        let load = try catbird.waitForRequest(matching: FeedMock.posts([]), timeout: 30)
        XCTAssertEqual(load.request.header("X-Catbird-Parallel-Id"), shard)
        XCTAssertEqual(load.answeredBy, .mock)
        XCTAssertEqual(load.tenant, shard)
        XCTAssertEqual(app.finish(), ["Feed", "@alice: \(alice.text)"])
        // Nothing else was loaded after it.
        XCTAssertThrowsError(try catbird.waitForRequest(matching: FeedMock.posts([]), timeout: 0, since: load.id)) { error in
            XCTAssertEqual((error as? CatbirdError)?.statusCode, 408)
        }
    }

    func testCreatedPostAppearsAfterTheFeedMockIsSwapped() throws {
        try catbird.send(.add(FeedMock.posts([bob, alice])))
        XCTAssertEqual(try launchApp("feed"), ["Feed", "@bob: \(bob.text)", "@alice: \(alice.text)"])

        // The user writes a post; the backend will answer with it, and the next feed includes it.
        let mine = Post(id: 3, author: "carol", text: "My new post from \(shard)")
        try catbird.send(.add(CreatePostMock.created(mine)))
        try catbird.send(.add(FeedMock.posts([mine, bob, alice])))

        XCTAssertEqual(try launchApp("post", mine.text), [
            "Posted: \(mine.text)", "Feed", "@carol: \(mine.text)", "@bob: \(bob.text)", "@alice: \(alice.text)",
        ])

        // The app posted the right JSON body, exactly once.
        let posts = try journaled(.POST, "/api/createPost")
        XCTAssertEqual(posts.count, 1)
        XCTAssertEqual(posts.first.map { jsonObject($0.request.body) }, ["text": mine.text])
        XCTAssertEqual(try catbird.count(matching: CreatePostMock.created(mine)), 1)
        XCTAssertEqual(try catbird.count(matching: FeedMock.posts([])), 2)
        // Swapping replaced the feed mock in place: still two mocks, feed first.
        XCTAssertEqual(try catbird.mocks().map(\.pattern.url.value), ["/api/feed", "/api/createPost"])
    }

    func testTheJournalHoldsOnlyThisShardsRequests() throws {
        try catbird.send(.add(FeedMock.posts([alice])))
        _ = try launchApp("feed")
        let journal = try catbird.allRequests()
        XCTAssertFalse(journal.isEmpty)
        XCTAssertEqual(Set(journal.map(\.tenant)), [shard])
        let rows = try catbird.sql("SELECT COUNT(*), COUNT(DISTINCT tenant) FROM requests")
        XCTAssertEqual(rows.rows.first, [CatbirdSQLValue.integer(Int64(journal.count)), .integer(1)])
    }
}
