import CatbirdAPI
import CatbirdAppSupport
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `CatbirdAppConfiguration.RedirectingURLProtocol`: a session it is installed in sends its
/// requests to a real Catbird with the tenant header; nothing is redirected after unregistering.
final class RedirectingURLProtocolTests: XCTestCase {
    override func tearDown() {
        CatbirdAppConfiguration.unregisterURLProtocol()
        super.tearDown()
    }

    func testAnInstalledSessionSendsItsRequestsToCatbirdForItsTenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("app-1")
        try catbird.send(.update(RequestPattern(method: .GET, url: "/v1/feed?page=2"), ResponseMock(body: Data("mocked feed".utf8))))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: server.baseURL, parallelId: "app-1"))
        let session = URLSession(configuration: configuration.installURLProtocol(in: .ephemeral))
        defer { session.invalidateAndCancel() }

        let (data, response) = try load(session, URLRequest(url: URL(string: "https://api.example.com/v1/feed?page=2")!))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "mocked feed")

        var post = URLRequest(url: URL(string: "https://api.example.com/v1/events")!)
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"event":"opened"}"#.utf8)
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, notMocked) = try load(session, post)
        XCTAssertEqual((notMocked as? HTTPURLResponse)?.statusCode, 404, "Catbird answered: no mock for it")

        let journal = try catbird.allRequests()
        XCTAssertEqual(journal.map(\.url), ["/v1/feed?page=2", "/v1/events"])
        XCTAssertEqual(journal.map(\.tenant), ["app-1", "app-1"])
        XCTAssertEqual(journal.last?.request.bodyText, #"{"event":"opened"}"#)
        XCTAssertEqual(try server.catbird().allRequests().count, 0, "nothing reached the default tenant")
    }

    func testNothingIsTakenWhileNotRegistered() throws {
        let request = URLRequest(url: URL(string: "https://api.example.com/v1/feed")!)
        XCTAssertFalse(CatbirdAppConfiguration.RedirectingURLProtocol.canInit(with: request), "off by default")
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: URL(string: "http://127.0.0.1:8080")!))
        configuration.registerURLProtocol()
        XCTAssertTrue(CatbirdAppConfiguration.RedirectingURLProtocol.canInit(with: request))
        XCTAssertFalse(
            CatbirdAppConfiguration.RedirectingURLProtocol.canInit(with: URLRequest(url: URL(string: "file:///tmp/x")!)),
            "only http and https")
        CatbirdAppConfiguration.unregisterURLProtocol()
        XCTAssertFalse(CatbirdAppConfiguration.RedirectingURLProtocol.canInit(with: request))
    }

    /// The body and response of `request`, waited for (at most 30 s).
    private func load(_ session: URLSession, _ request: URLRequest) throws -> (Data, URLResponse?) {
        let outcome = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            outcome.set(data ?? Data(), response, error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 30) == .success else { throw URLError(.timedOut) }
        return try outcome.get()
    }
}

/// A data task's outcome, handed from its completion handler to the waiting test.
private final class OutcomeBox: @unchecked Sendable {
    // @unchecked Sendable: every access takes `lock`.
    private let lock = NSLock()
    private var stored: (Data, URLResponse?, (any Error)?) = (Data(), nil, nil)

    func set(_ data: Data, _ response: URLResponse?, _ error: (any Error)?) {
        lock.lock()
        stored = (data, response, error)
        lock.unlock()
    }

    func get() throws -> (Data, URLResponse?) {
        lock.lock()
        defer { lock.unlock() }
        if let error = stored.2 { throw error }
        return (stored.0, stored.1)
    }
}
