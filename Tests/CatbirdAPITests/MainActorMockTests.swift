import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// A mock enum as a shared UI-test-support module declares it: `public`, so not implicitly
/// `Sendable`.
public enum SharedFeedMock: CatbirdMockConvertible {
    case empty
    public var pattern: RequestPattern { RequestPattern(method: .GET, url: "/api/feed") }
    public var response: ResponseMock { ResponseMock(status: 200, body: Data("[]".utf8)) }
}

/// The `async` forms taking a mock, called from a `@MainActor` test class with a mock parameter
/// and a mock property (tester finding T18C-F3: "sending 'mock' risks causing data races", a
/// compile error in Swift 6 mode, which this target builds in).
@MainActor
final class MainActorMockTests: CatbirdTestCase {
    private let feed = SharedFeedMock.empty

    /// A suite helper taking any mock, as UI-test suites keep.
    private func expectRequested(_ mock: any CatbirdMockConvertible, on catbird: Catbird, times: Int) async throws {
        let count = try await catbird.count(matching: mock)
        XCTAssertEqual(count, times)
        let entry = try await catbird.waitForRequest(matching: mock, timeout: 0)
        XCTAssertEqual(entry.url, "/api/feed")
    }

    func testAsyncMockFormsFromMainActorWithParameterAndProperty() async throws {
        let server = try TestServer()
        // Registered before the tenant's own tear-down block, so it runs after it (last in,
        // first out): the tenant is dropped while the server still runs.
        addTeardownBlock { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "t18c-f3")
        try catbird.send(.add(feed))
        XCTAssertEqual(try server.appRequest("GET", "/api/feed", parallelId: "t18c-f3").status, 200)

        try await expectRequested(feed, on: catbird, times: 1)
        let count = try await catbird.count(matching: feed)
        XCTAssertEqual(count, 1)
        let entry = try await catbird.waitForRequest(matching: feed, timeout: 0)
        XCTAssertEqual(entry.response.status, 200)

        let tenant = try Catbird.TestTenant(for: self, url: server.baseURL, clone: nil)
        try await tenant.send(.add(feed))
        XCTAssertEqual(try server.appRequest("GET", "/api/feed", parallelId: tenant.parallelId).status, 200)
        let tenantEntry = try await tenant.waitForRequest(matching: feed, timeout: 0)
        XCTAssertEqual(tenantEntry.response.status, 200)
    }
}
