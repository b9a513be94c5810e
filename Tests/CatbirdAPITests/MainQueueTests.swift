import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Synchronous calls made from work the main queue is already running (a `@MainActor` async
/// test, a `DispatchQueue.main.async` block): the main queue cannot run another block then, so
/// an answer delivered on it would never arrive. Guarded by ``CatbirdTestCase``'s watchdog.
final class MainQueueTests: CatbirdTestCase {
    /// Sync `send`, `mocks()` and `count(matching:)` from a `@MainActor` async test method, with
    /// the default session (callbacks on the main queue).
    @MainActor
    func testSyncCallsFromMainActorAsyncTestComplete() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL)
        XCTAssertTrue(catbird.session.delegateQueue === OperationQueue.main)
        XCTAssertTrue(Thread.isMainThread)
        let (mocks, count) = try Self.syncRoundTrip(catbird)
        XCTAssertEqual(mocks, 1)
        XCTAssertEqual(count, 0)
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200)
    }

    /// The same from inside a `DispatchQueue.main.async` block, with the default session and
    /// with a caller-supplied session that delivers on the main queue.
    func testSyncCallsInsideMainQueueBlockComplete() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 5
        let mainQueueSession = URLSession(configuration: configuration, delegate: nil, delegateQueue: .main)
        defer { mainQueueSession.finishTasksAndInvalidate() }
        for catbird in [Catbird(url: server.baseURL), server.catbird(session: mainQueueSession)] {
            let results = Locked<(mocks: Int, count: Int)?>(nil)
            let errors = Outcomes()
            let done = expectation(description: "sync calls inside a main-queue block")
            DispatchQueue.main.async {
                XCTAssertTrue(Thread.isMainThread)
                do {
                    results.set(try Self.syncRoundTrip(catbird))
                } catch {
                    errors.append(error)
                }
                done.fulfill()
            }
            wait(for: [done], timeout: 50)
            XCTAssertEqual(errors.all.count, 0, "\(errors.all)")
            let (mocks, count) = try XCTUnwrap(results.value)
            XCTAssertEqual(mocks, 1)
            XCTAssertEqual(count, 0)
            try catbird.send(.removeAll)
        }
    }

    /// A caller-supplied session with a delegate cannot be replaced by a background twin: a
    /// synchronous call that cannot get its main-queue answer throws `URLError(.timedOut)`
    /// after the request timeout plus a margin instead of hanging.
    func testSyncCallWithMainQueueDelegateSessionTimesOutInsteadOfHanging() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = URLSession(configuration: configuration, delegate: NoOpDelegate(), delegateQueue: .main)
        defer { session.finishTasksAndInvalidate() }
        let catbird = server.catbird(session: session)
        let errors = Outcomes()
        let done = expectation(description: "sync call inside a main-queue block")
        let started = Date()
        DispatchQueue.main.async {
            do {
                try catbird.send(.add(LoginMock.success))
                errors.append(nil)
            } catch {
                errors.append(error)
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 50)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(errors.all.count, 1)
        let error = try XCTUnwrap(errors.all.first.flatMap { $0 } as? URLError, "\(errors.all)")
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertGreaterThanOrEqual(elapsed, 1)
        XCTAssertLessThan(elapsed, 30)
    }

    /// One sync add, then `mocks().count` and `count(matching:)` through their sync forms.
    private static func syncRoundTrip(_ catbird: Catbird) throws -> (mocks: Int, count: Int) {
        for _ in 0..<5 { try catbird.send(.add(LoginMock.success)) }
        return (try catbird.mocks().count, try catbird.count(matching: LoginMock.success))
    }
}

private final class NoOpDelegate: NSObject, URLSessionDataDelegate {}
