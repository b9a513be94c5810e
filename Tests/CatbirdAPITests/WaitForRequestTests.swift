import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `waitForRequest(matching:timeout:since:)` against a real server: an entry already journaled
/// is answered at once, one that arrives later as soon as it is journaled, and none within the
/// timeout is a 408 listing what did arrive; waits hold no worker thread.
final class WaitForRequestTests: CatbirdTestCase {
    private let analytics = RequestPattern(method: .POST, url: "/analytics/events")

    func testARequestAlreadyJournaledIsAnsweredAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("shard-1")
        try server.appRequest("POST", "/analytics/events", parallelId: "shard-1", body: #"{"event":"opened"}"#)

        let entry = try catbird.waitForRequest(matching: analytics, timeout: 5)
        XCTAssertEqual(entry.method, .POST)
        XCTAssertEqual(entry.url, "/analytics/events")
        XCTAssertEqual(entry.tenant, "shard-1")
        XCTAssertEqual(entry.request.bodyText, #"{"event":"opened"}"#)
        XCTAssertEqual(entry.response.status, 404)
    }

    func testARequestThatArrivesLaterIsAnsweredWhenItIsJournaled() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("shard-2")
        try catbird.send(.update(analytics, ResponseMock(status: 202)))
        let first = try server.appRequest("POST", "/analytics/events", parallelId: "shard-2", body: "first")
        XCTAssertEqual(first.status, 202)
        let firstId = try await catbird.waitForRequest(matching: analytics).id

        // Only entries after `since` count: wait for the next one, which the "app" sends later.
        let sent = ContinuousClock.now.advanced(by: .milliseconds(500))
        let app = Task.detached {
            try await Task.sleep(until: sent, clock: .continuous)
            _ = try server.appRequest("POST", "/analytics/events", parallelId: "shard-2", body: "second")
        }
        let entry = try await catbird.waitForRequest(matching: analytics, timeout: 30, since: firstId)
        let answered = ContinuousClock.now
        try await app.value
        XCTAssertEqual(entry.request.bodyText, "second")
        XCTAssertGreaterThan(entry.id, firstId)
        XCTAssertEqual(entry.response.status, 202)
        XCTAssertGreaterThanOrEqual(answered, sent, "answered after the request was sent, not before")
    }

    func testNoMatchWithinTheTimeoutIsA408ListingWhatArrived() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("shard-3")
        try server.appRequest("GET", "/api/feed", parallelId: "shard-3")
        try server.appRequest("POST", "/analytics/events", parallelId: "another-shard")

        let started = ContinuousClock.now
        let error = try XCTUnwrap(assertCatbirdError(408, try catbird.waitForRequest(matching: analytics, timeout: 1)))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .seconds(1), "it waited the whole timeout")
        let reason = try XCTUnwrap(error.failureReason)
        XCTAssertTrue(reason.contains(#"no request matching POST equal "/analytics/events" arrived within 1 s"#), reason)
        XCTAssertTrue(reason.contains("GET /api/feed → 404"), "what did arrive: \(reason)")
        XCTAssertFalse(reason.contains("another-shard"), reason)

        let empty = try XCTUnwrap(assertCatbirdError(408, try server.catbird("quiet").waitForRequest(matching: analytics, timeout: 0)))
        XCTAssertTrue(empty.failureReason?.hasSuffix("the journal has: nothing") == true, empty.failureReason ?? "")
    }

    func testAnotherTenantsRequestDoesNotCount() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        try server.appRequest("POST", "/analytics/events", parallelId: "other")
        try server.appRequest("POST", "/analytics/events")
        // Longer than Catbird.session's 5-second request timeout: the call allows for the wait.
        assertCatbirdError(408, try server.catbird("mine").waitForRequest(matching: analytics, timeout: 6))
    }

    func testBadWaitsAre400() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        let tooLong = assertCatbirdError(400, try catbird.waitForRequest(matching: analytics, timeout: 301))
        XCTAssertTrue(tooLong?.failureReason?.contains("'timeout'") == true, "\(String(describing: tooLong))")
        // Regression: the reason said "not 301.0".
        XCTAssertTrue(tooLong?.failureReason?.hasSuffix("not 301") == true, "\(String(describing: tooLong?.failureReason))")
        let fraction = assertCatbirdError(400, try catbird.waitForRequest(matching: analytics, timeout: 300.5))
        XCTAssertTrue(fraction?.failureReason?.hasSuffix("not 300.5") == true, "\(String(describing: fraction?.failureReason))")
        assertCatbirdError(400, try catbird.waitForRequest(matching: analytics, timeout: -1))
        assertCatbirdError(400, try catbird.waitForRequest(matching: analytics, timeout: 1, since: -5))
        let regexp = RequestPattern(method: .GET, url: PatternMatch.regexp("(unclosed"))
        assertCatbirdError(400, try catbird.waitForRequest(matching: regexp, timeout: 1))
    }

    /// A timeout that is not finite is refused by the client with a reason naming it, not sent
    /// as -1 and refused by the server as "not -1" (tester finding tester22a-F13).
    func testAnInfiniteOrNaNTimeoutIsRefusedNamingIt() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "edge")
        let root = RequestPattern(method: .GET, url: "/")
        let infinite = assertCatbirdError(400, try catbird.waitForRequest(matching: root, timeout: .infinity))
        let reason = infinite?.failureReason ?? ""
        XCTAssertTrue(reason.hasPrefix("'timeout' must be a number of seconds from 0 to 300, not inf "), reason)
        XCTAssertFalse(reason.contains("-1"), reason)
        let nan = assertCatbirdError(400, try catbird.waitForRequest(matching: root, timeout: .nan))
        XCTAssertTrue(nan?.failureReason?.contains("not nan ") == true, "\(String(describing: nan))")
        let minusInfinity = assertCatbirdError(400, try catbird.waitForRequest(matching: root, timeout: -.infinity))
        XCTAssertTrue(minusInfinity?.failureReason?.contains("not -inf ") == true, "\(String(describing: minusInfinity))")
        // Nothing was sent: the journal has no wait, and a finite timeout still works.
        assertCatbirdError(408, try catbird.waitForRequest(matching: root, timeout: 0))
    }

    /// The async form refuses a NaN timeout the same way (tester22a-F13).
    func testANaNTimeoutIsRefusedNamingItAsync() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "edge")
        let nan = await assertCatbirdErrorAsync(400) {
            try await catbird.waitForRequest(matching: RequestPattern(method: .GET, url: "/"), timeout: .nan)
        }
        XCTAssertTrue(nan?.failureReason?.contains("not nan ") == true, "\(String(describing: nan))")
    }

    /// 64 parked waits of default clients leave every other call of every default client
    /// answering at once, not timing out after 5 seconds queued behind the waits' connections
    /// (tester finding tester22a-F18: the waits filled the shared session's 64 connections).
    func test64ParkedWaitsDoNotStarveOtherCalls() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let base = server.baseURL
        let waits = (0..<64).map { index in
            Task.detached {
                try await Catbird(url: base, parallelId: "mw\(index)")
                    .waitForRequest(matching: RequestPattern(method: .GET, url: "/never"), timeout: 20)
            }
        }
        defer { waits.forEach { $0.cancel() } }
        try await Task.sleep(for: .milliseconds(1500))

        let other = Catbird(url: base, parallelId: "mw-other")
        let clock = ContinuousClock()
        let asyncTime = try await clock.measure { _ = try await other.mocks() }
        XCTAssertLessThan(asyncTime, .seconds(2), "async mocks() with 64 parked waits")
        let syncTime = try await Task.detached { try clock.measure { _ = try other.mocks() } }.value
        XCTAssertLessThan(syncTime, .seconds(2), "synchronous mocks() with 64 parked waits")
        let sendTime = try await Task.detached { try clock.measure { try other.send(.removeAll) } }.value
        XCTAssertLessThan(sendTime, .seconds(2), "send(.removeAll) with 64 parked waits")

        // The waits are still parked (none answered or failed meanwhile) and end when cancelled.
        for wait in waits { wait.cancel() }
        for wait in waits {
            do {
                _ = try await wait.value
                XCTFail("nothing was sent to /never")
            } catch let error as URLError {
                XCTAssertEqual(error.code, .cancelled)
            }
        }
    }

    func testWaitsHoldNoWorkerThread() async throws {
        // One worker thread: four parked waits must leave it free to serve mocks.
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let catbird = server.catbird("busy")
        try catbird.send(.add(LoginMock.success))
        let waits = (0..<4).map { index in
            Task.detached {
                try await catbird.waitForRequest(
                    matching: RequestPattern(method: .GET, url: "/never/\(index)"), timeout: 3)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        for _ in 0..<5 {
            XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "busy").status, 200)
        }
        for wait in waits {
            do {
                _ = try await wait.value
                XCTFail("nothing was sent to /never")
            } catch let error as CatbirdError {
                XCTAssertEqual(error.statusCode, 408)
            }
        }
    }
}
