import CatbirdAPI
import CatbirdAppSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The server these tests talk to: `CATBIRD_TEST_URL`, default `http://127.0.0.1:8080`.
let serverURL = ProcessInfo.processInfo.environment["CATBIRD_TEST_URL"].flatMap(URL.init(string:))
    ?? URL(string: "http://127.0.0.1:8080")!

/// The client library against a real server, as a UI test and the app under test use it: the
/// test mocks and checks, the app sends through `CatbirdAppSupport`.
final class ClientAgainstServerTests: XCTestCase {
    private enum FeedMock: CatbirdMockConvertible {
        case twoPosts
        var pattern: RequestPattern { RequestPattern(method: .GET, url: "/v1/feed") }
        var response: ResponseMock { ResponseMock(headers: ["Content-Type": "application/json"], body: Data(#"{"posts":[1,2]}"#.utf8)) }
    }

    func testTheAppGetsTheMockAndTheTestSeesItsRequest() throws {
        let catbird = Catbird(url: serverURL, parallelId: "client-suite-\(UUID().uuidString)")
        defer { _ = try? catbird.dropTenant() }
        try catbird.send(.add(FeedMock.twoPosts))

        let app = try XCTUnwrap(CatbirdAppConfiguration(
            arguments: ["/App"] + catbird.launchArguments, environment: [:]), "the app reads the launch arguments")
        let session = URLSession(configuration: app.sessionConfiguration(.ephemeral))
        defer { session.invalidateAndCancel() }
        let body = try load(session, URLRequest(url: app.url(for: URL(string: "https://api.example.com/v1/feed")!)))
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"posts":[1,2]}"#)

        XCTAssertEqual(try catbird.count(matching: FeedMock.twoPosts), 1)
        XCTAssertEqual(try catbird.allRequests().map(\.url), ["/v1/feed"])
        try catbird.send(.remove(FeedMock.twoPosts))
        XCTAssertEqual(try catbird.mocks().count, 0)
    }

    func testATestGetsItsOwnTenant() async throws {
        let tenant = try Catbird.TestTenant(for: self, url: serverURL)
        XCTAssertTrue(tenant.parallelId.hasPrefix("ClientAgainstServerTests.testATestGetsItsOwnTenant@"), tenant.parallelId)
        try await tenant.send(.add(FeedMock.twoPosts))
        let app = try XCTUnwrap(CatbirdAppConfiguration(arguments: ["/App"] + tenant.launchArguments, environment: [:]))
        let session = URLSession(configuration: app.sessionConfiguration(.ephemeral))
        defer { session.invalidateAndCancel() }
        _ = try await session.data(for: URLRequest(url: app.url(for: URL(string: "https://api.example.com/v1/feed")!)))
        let listed = try await tenant.catbird.tenants().first { $0.id == tenant.parallelId }
        XCTAssertEqual(listed?.mocks, 1)
        XCTAssertEqual(listed?.requests, 1)
        let load = try await tenant.waitForRequest(matching: FeedMock.twoPosts, timeout: 10)
        XCTAssertEqual(load.url, "/v1/feed")
        XCTAssertEqual(load.response.status, 200)
    }

    func testWaitingForARequestThatNeverComesTimesOutWithWhatArrived() throws {
        let catbird = Catbird(url: serverURL, parallelId: "client-suite-\(UUID().uuidString)")
        XCTAssertThrowsError(try catbird.waitForRequest(matching: RequestPattern(method: .POST, url: "/never"), timeout: 1)) { error in
            XCTAssertEqual((error as? CatbirdError)?.errorCode, 408)
            XCTAssertTrue((error as? CatbirdError)?.failureReason?.contains("/never") == true, "\(error)")
        }
    }

    func testTheCompletionFormCallsBackOnTheMainQueue() throws {
        let catbird = Catbird(url: serverURL, parallelId: "client-suite-\(UUID().uuidString)")
        defer { _ = try? catbird.dropTenant() }
        let answered = expectation(description: "completion")
        catbird.send(.add(FeedMock.twoPosts)) { error in
            XCTAssertNil(error)
            XCTAssertTrue(Thread.isMainThread, "Catbird.session delivers on the main queue, as in 0.11")
            answered.fulfill()
        }
        wait(for: [answered], timeout: 30)
    }

    func testAServerErrorIsACatbirdErrorWithTheReason() throws {
        let catbird = Catbird(url: serverURL)
        let invalid = RequestPattern(method: .GET, url: PatternMatch.regexp("(unclosed"))
        XCTAssertThrowsError(try catbird.send(.update(invalid, ResponseMock()))) { error in
            let catbirdError = error as? CatbirdError
            XCTAssertEqual(catbirdError?.errorCode, 400)
            XCTAssertNotNil(catbirdError?.failureReason)
        }
    }

    /// The body of `request`'s answer, waited for (at most 30 s).
    private func load(_ session: URLSession, _ request: URLRequest) throws -> Data {
        let answered = expectation(description: "\(request.url?.absoluteString ?? "")")
        let box = DataBox()
        session.dataTask(with: request) { data, _, error in
            box.set(data, error)
            answered.fulfill()
        }.resume()
        wait(for: [answered], timeout: 30)
        return try box.get()
    }
}

/// A data task's outcome, handed from its completion handler to the waiting test.
final class DataBox: @unchecked Sendable {
    // @unchecked Sendable: every access takes `lock`.
    private let lock = NSLock()
    private var data: Data?
    private var error: (any Error)?

    func set(_ data: Data?, _ error: (any Error)?) {
        lock.lock()
        (self.data, self.error) = (data, error)
        lock.unlock()
    }

    func get() throws -> Data {
        lock.lock()
        defer { lock.unlock() }
        if let error { throw error }
        return data ?? Data()
    }
}
