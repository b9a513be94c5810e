import CatbirdAPI
import CatbirdAppSupport
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Cancelling a request while `RedirectingURLProtocol` forwards it (CI run of e7bd104: a
/// session's `invalidateAndCancel()` during a forwarded request crashed the test process, the
/// protocol cancelling its forwarding task on the URL sessions' shared work queue).
final class RedirectingURLProtocolCancelTests: XCTestCase {
    override func tearDown() {
        CatbirdAppConfiguration.unregisterURLProtocol()
        super.tearDown()
    }

    func testCancellingAForwardedRequestEndsItWithCancelled() throws {
        try checkCancel { session, _ in session.invalidateAndCancel() }
    }

    func testCancellingTheTaskEndsItWithCancelled() throws {
        try checkCancel { _, task in task.cancel() }
    }

    /// Starts a request whose mock answers after 20 s, lets the protocol forward it, calls
    /// `cancel`, and expects the request to end with `URLError.cancelled` long before the answer.
    private func checkCancel(_ cancel: (URLSession, URLSessionDataTask) -> Void) throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("cancel-proto")
        try catbird.send(.update(RequestPattern(method: .GET, url: "/slow"), ResponseMock(body: Data("late".utf8), delay: 20)))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: server.baseURL, parallelId: "cancel-proto"))
        let session = URLSession(configuration: configuration.installURLProtocol(in: .ephemeral))
        defer { session.invalidateAndCancel() }

        let ended = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        let task = session.dataTask(with: URL(string: "https://api.example.com/slow")!) { _, _, error in
            failure.set(error)
            ended.signal()
        }
        task.resume()
        Thread.sleep(forTimeInterval: 1)  // the protocol has made and resumed its forwarding task
        cancel(session, task)

        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the cancelled request ended before its 20 s answer")
        XCTAssertEqual((failure.value as? URLError)?.code, .cancelled, "\(String(describing: failure.value))")
    }
}


/// The app's request's `timeoutInterval` holds through `RedirectingURLProtocol`.
final class RedirectingURLProtocolTimeoutTests: XCTestCase {
    override func tearDown() {
        CatbirdAppConfiguration.unregisterURLProtocol()
        super.tearDown()
    }

    /// Regression (tester finding tester57b-F6, its case): a request with a 1 s timeout to a
    /// mock delayed 3 s was answered 200 after 3 s through the protocol (its forwarding session
    /// applied its own 60 s). It now ends with `URLError.timedOut` after about 1 s.
    func testARequestsTimeoutEndsItWithTimedOut() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("timeout-proto")
        try catbird.send(.update(RequestPattern(method: .GET, url: "/slow2"), ResponseMock(status: 200, body: Data("z".utf8), delay: 3)))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: server.baseURL, parallelId: "timeout-proto"))
        let session = URLSession(configuration: configuration.installURLProtocol(in: .ephemeral))
        defer { session.invalidateAndCancel() }

        var request = URLRequest(url: URL(string: "https://x/slow2")!)
        request.timeoutInterval = 1
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<(status: Int?, error: (any Error)?)>((nil, nil))
        let started = ContinuousClock.now
        session.dataTask(with: request) { _, response, error in
            outcome.set(((response as? HTTPURLResponse)?.statusCode, error))
            ended.signal()
        }.resume()
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success)
        let took = ContinuousClock.now - started
        XCTAssertNil(outcome.value.status, "no answer: \(outcome.value)")
        XCTAssertEqual((outcome.value.error as? URLError)?.code, .timedOut, "\(String(describing: outcome.value.error))")
        XCTAssertLessThan(took, .milliseconds(2500), "it ended at its 1 s timeout, not at the 3 s answer")
    }
}
