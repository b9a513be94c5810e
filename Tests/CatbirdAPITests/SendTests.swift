import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `send`, the Catbird 0.11 API, against a real server.
final class SendTests: CatbirdTestCase {
    /// The README flow: add LoginMock.success, the app gets it; remove it, the app gets 404;
    /// removeAll clears the rest.
    func testReadmeLoginMockIsServedThenRemoved() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()

        try catbird.send(.add(LoginMock.success))
        let served = try server.appRequest("POST", "/login", body: #"{"login":"john"}"#)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.header("Content-Type"), "application/json")
        XCTAssertEqual(try canonicalJSON(Data(served.body)), try canonicalJSON(try XCTUnwrap(LoginMock.success.response.body)))

        try catbird.send(.remove(LoginMock.success))
        let removed = try server.appRequest("POST", "/login")
        XCTAssertEqual(removed.status, 404)
        XCTAssertEqual(removed.object["error"] as? Bool, true)
        XCTAssertTrue((removed.object["reason"] as? String ?? "").hasPrefix("no mock matched POST /login in the default tenant"), removed.text)

        try catbird.send(.add(LoginMock.blockedUserError))
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 400)
        try catbird.send(.add(RequestPatternMocks.about))
        XCTAssertEqual(try catbird.mocks().count, 2)
        try catbird.send(.removeAll)
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 404)
        XCTAssertEqual(try server.appRequest("GET", "/about").status, 404)
        XCTAssertEqual(try catbird.mocks().count, 0)
    }

    /// `update` with an equal pattern replaces the mock; limit and delay (seconds) reach the server.
    func testUpdateReplacesAndLimitAndDelayApply() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        let pattern = RequestPattern(method: .GET, url: PatternMatch.wildcard("/api/books/*"))
        try catbird.send(.update(pattern, ResponseMock(status: 200, body: Data("first".utf8))))
        try catbird.send(.update(pattern, ResponseMock(status: 202, body: Data("second".utf8), limit: 1, delay: 1)))

        let started = Date()
        let answer = try server.appRequest("GET", "/API/books/1")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.95, "delay is in seconds")
        XCTAssertEqual(answer.status, 202)
        XCTAssertEqual(answer.text, "second")
        XCTAssertEqual(try server.appRequest("GET", "/api/books/1").status, 404, "limit 1 used up")
    }

    /// A parallel id scopes `send`: P's mock answers P's requests only, and P's removeAll
    /// leaves Q's mocks alone.
    func testParallelIdScopesSend() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let p = server.catbird("shard-P")
        let q = server.catbird("shard-Q")
        try p.send(.add(LoginMock.success))
        try q.send(.add(LoginMock.blockedUserError))

        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "shard-P").status, 200)
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "shard-Q").status, 400)
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 404)

        try p.send(.removeAll)
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "shard-P").status, 404)
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "shard-Q").status, 400)

        p.parallelId = "shard-Q"
        try p.send(.remove(LoginMock.blockedUserError))
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "shard-Q").status, 404, "parallelId is read per call")
    }

    /// The server's 400 for an invalid regular expression arrives as a CatbirdError with the
    /// status and the server's reason.
    func testInvalidRegexpThrowsCatbirdErrorWithStatusAndReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let action = CatbirdAction.update(RequestPattern(method: .GET, url: PatternMatch.regexp("([a-z")), ResponseMock())

        let error = try XCTUnwrap(assertCatbirdError(400, try server.catbird().send(action)))
        XCTAssertEqual(error.errorCode, 400)
        let reason = try XCTUnwrap(error.reason)
        XCTAssertTrue(reason.contains("regular expression"), reason)
        XCTAssertEqual(error.failureReason, reason)
        XCTAssertTrue(error.description.contains(reason), error.description)
        XCTAssertTrue(error.description.contains("400"), error.description)
        let nsError = error as NSError
        XCTAssertEqual(nsError.domain, CatbirdError.errorDomain)
        XCTAssertEqual(nsError.code, 400)
        XCTAssertEqual(nsError.localizedFailureReason, reason)

        assertCatbirdError(400, try server.catbird().send(.update(RequestPattern(method: "GET POST", url: "/x"), ResponseMock())))
        assertCatbirdError(400, try server.catbird().send(.add(RequestPatternMocks.badStatus)))
    }

    /// The completion form calls back exactly once: nil on success, a CatbirdError on failure.
    func testCompletionIsCalledOnceWithNilOrCatbirdError() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        let outcomes = Outcomes()

        let success = expectation(description: "success")
        success.assertForOverFulfill = true
        let task = catbird.send(.add(LoginMock.success)) { error in
            outcomes.append(error)
            success.fulfill()
        }
        XCTAssertNotEqual(task.state, .suspended, "the task is resumed")
        wait(for: [success], timeout: 10)

        let failure = expectation(description: "failure")
        failure.assertForOverFulfill = true
        catbird.send(.update(RequestPattern(method: .GET, url: PatternMatch.regexp("(")), ResponseMock())) { error in
            outcomes.append(error)
            failure.fulfill()
        }
        wait(for: [failure], timeout: 10)
        // Give a second call the chance to happen.
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.3))

        let errors = outcomes.all
        XCTAssertEqual(errors.count, 2)
        XCTAssertNil(errors.first ?? CatbirdError(statusCode: 0, reason: "missing"))
        let error = try XCTUnwrap(errors.last.flatMap { $0 } as? CatbirdError)
        XCTAssertEqual(error.statusCode, 400)
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200, "the successful add was applied")
    }

    /// The synchronous form on the main thread with the default session, whose callbacks
    /// arrive on the main queue, does not deadlock.
    func testSyncSendOnMainThreadWithDefaultSessionDoesNotDeadlock() throws {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs test methods on the main thread")
        XCTAssertTrue(Catbird.session.delegateQueue === OperationQueue.main)
        XCTAssertFalse(Catbird.session === Catbird.session, "a new default session on every access, as in 0.11")
        XCTAssertEqual(Catbird.session.configuration.timeoutIntervalForRequest, 30)
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL)
        XCTAssertTrue(catbird.session.delegateQueue === OperationQueue.main)

        try failingOnDeadlock("sync send on the main thread") {
            for _ in 0..<20 { try catbird.send(.add(LoginMock.success)) }
            XCTAssertEqual(try catbird.mocks().count, 1)
        }
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200)
    }

    /// The synchronous form on the main thread with a session whose callbacks arrive on a
    /// background queue.
    func testSyncSendOnMainThreadWithBackgroundDelegateQueue() throws {
        XCTAssertTrue(Thread.isMainThread)
        let server = try TestServer()
        defer { server.removeFiles() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        XCTAssertFalse(session.delegateQueue === OperationQueue.main)
        let catbird = server.catbird(session: session)
        try failingOnDeadlock("sync send on the main thread, background delegate queue") {
            for _ in 0..<20 { try catbird.send(.add(LoginMock.success)) }
        }
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200)
    }

    /// The synchronous form on a background thread with the default session (callbacks on the
    /// main queue, which the test keeps free by waiting on an expectation).
    func testSyncSendOnBackgroundThreadWithDefaultSession() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        let outcomes = Outcomes()
        let done = expectation(description: "background sends")
        Thread {
            do {
                XCTAssertFalse(Thread.isMainThread)
                for _ in 0..<10 { try catbird.send(.add(LoginMock.success)) }
                outcomes.append(nil)
            } catch {
                outcomes.append(error)
            }
            done.fulfill()
        }.start()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(outcomes.all.count, 1)
        XCTAssertNil(outcomes.all.first ?? CatbirdError(statusCode: 0, reason: "missing"))
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200)
    }

    /// Without a server the synchronous form throws a URLError promptly.
    func testSyncSendWithoutServerThrowsURLError() throws {
        let capture = try CaptureServer()
        let url = capture.url
        capture.stop()
        let started = Date()
        XCTAssertThrowsError(try Catbird(url: url).send(.removeAll)) { error in
            XCTAssertTrue(error is URLError, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }
}

/// Mocks used by the send tests.
enum RequestPatternMocks: CatbirdMockConvertible {
    case about
    case badStatus

    var pattern: RequestPattern {
        RequestPattern(method: .GET, url: "/about")
    }

    var response: ResponseMock {
        switch self {
        case .about: return ResponseMock()
        case .badStatus: return ResponseMock(status: 99)
        }
    }
}

/// Completion results collected across threads.
final class Outcomes: @unchecked Sendable {
    // @unchecked Sendable: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [(any Error)?] = []

    func append(_ error: (any Error)?) {
        lock.lock()
        values.append(error)
        lock.unlock()
    }

    var all: [(any Error)?] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// The server's warnings of a mock it accepts but can never serve reach the test author.
final class SendWarningTests: CatbirdTestCase {
    /// Regression (tester finding tester57b-F10, its mocks): an equal URL without its leading
    /// `/` and a mock after a catch-all were answered 201 with `{"warnings": […]}`, which `send`
    /// dropped: they reached only the server's log. Each is now written to standard error; a
    /// mock with nothing to warn about writes nothing.
    func testTheServersWarningsAreWrittenToStandardError() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("warned")
        let quiet = try capturingStandardError {
            try catbird.send(.update(RequestPattern(method: .GET, url: "/fine"), ResponseMock(status: 200)))
        }
        XCTAssertFalse(quiet.contains("Catbird: the server warns"), quiet)
        let written = try capturingStandardError {
            try catbird.send(.update(RequestPattern(method: .GET, url: PatternMatch.wildcard("*")), ResponseMock(status: 200)))
            try catbird.send(.update(RequestPattern(method: .GET, url: "api/feed"), ResponseMock(status: 200, body: Data("feed".utf8))))
        }
        XCTAssertTrue(written.contains("Catbird: the server warns about the mock for GET api/feed: "), written)
        XCTAssertTrue(written.contains(#"did you mean \"/api/feed\"?"#) || written.contains(#"did you mean "/api/feed"?"#), written)
        XCTAssertTrue(written.contains("this mock is never served"), written)
    }
}
