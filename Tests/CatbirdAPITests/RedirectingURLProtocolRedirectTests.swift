import CatbirdAPI
import CatbirdAppSupport
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A mocked redirect through `RedirectingURLProtocol` (tester finding T18C-F2): the follow-up
/// goes to Catbird again with the tenant header, never to the production host.
final class RedirectingURLProtocolRedirectTests: XCTestCase {
    override func tearDown() {
        CatbirdAppConfiguration.unregisterURLProtocol()
        super.tearDown()
    }

    func testARedirectToTheProductionHostIsFollowedThroughCatbird() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("t18c-proto")
        try catbird.send(.update(
            RequestPattern(method: .GET, url: "/r"), ResponseMock(status: 302, headers: ["Location": "https://api.example.com/target"])))
        try catbird.send(.update(RequestPattern(method: .GET, url: "/r2"), ResponseMock(status: 302, headers: ["Location": "/target"])))
        try catbird.send(.update(RequestPattern(method: .GET, url: "/target"), ResponseMock(status: 200, body: Data("target".utf8))))
        let configuration = try XCTUnwrap(CatbirdAppConfiguration(serverURL: server.baseURL, parallelId: "t18c-proto"))
        let session = URLSession(configuration: configuration.installURLProtocol())
        // Not invalidateAndCancel(): swift-corelibs-foundation may still count a task whose async
        // call has returned as running, and cancelling it resumed that call's continuation a
        // second time (a crash of the test process in the CI run of 0b9b46a).
        defer { session.finishTasksAndInvalidate() }

        for path in ["/r", "/r2"] {
            let (data, response) = try await session.data(from: URL(string: "https://api.example.com\(path)")!)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200, path)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "target", path)
        }
        let journal = try await catbird.allRequests()
        XCTAssertEqual(journal.map(\.url), ["/r", "/target", "/r2", "/target"])
        XCTAssertEqual(Set(journal.map(\.tenant)), ["t18c-proto"], "every hop carried the tenant header")
        let defaultTenant = try await server.catbird().allRequests()
        XCTAssertEqual(defaultTenant.count, 0)
    }
}
