import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a client costs while it lives (tester finding T18C-F9: every `Catbird` made without a
/// session held 4 file descriptors on Linux, its own session and the background twin, so the
/// README's `private let catbird = Catbird(parallelId: …)` in a 250-test class, whose
/// instances XCTest makes all at once, crashed the run under `ulimit -n 1024`).
final class ClientCostTests: CatbirdTestCase {
    /// 2,000 clients made without a session, kept alive and used, hold a handful of
    /// descriptors between them, not 8,000; every one still works.
    func testTwoThousandDefaultClientsHoldFewDescriptorsAndWork() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let before = try Self.openDescriptors()
        let clients = (0..<2_000).map { Catbird(url: server.baseURL, parallelId: "t18c-f9-\($0)") }
        XCTAssertLessThan(try Self.openDescriptors() - before, 10, "2,000 clients made")

        for (index, catbird) in clients.enumerated() where index % 100 == 0 {
            try catbird.send(.add(LoginMock.success))
            let mocks = try await catbird.mocks()
            XCTAssertEqual(mocks.count, 1, "client \(index)")
        }
        let sent = expectation(description: "completion form")
        clients[1_999].send(.removeAll) { error in
            XCTAssertNil(error)
            XCTAssertTrue(Thread.isMainThread, "the default client calls back on the main queue, as Catbird.session")
            sent.fulfill()
        }
        await fulfillment(of: [sent], timeout: 30)
        XCTAssertLessThan(try Self.openDescriptors() - before, 40, "20 of 2,000 clients used")
        XCTAssertEqual(try server.appRequest("POST", "/login", parallelId: "t18c-f9-1900").status, 200)
        withExtendedLifetime(clients) {}
    }

    /// Reading `session` of a client made without one gives it its own `Catbird.session`
    /// (main queue, 30 s), the same on every read; invalidating it leaves the client working.
    func testDefaultClientSessionIsMadeOnFirstReadAndKept() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "t18c-f9-session")
        let session = catbird.session
        XCTAssertTrue(session === catbird.session)
        XCTAssertTrue(session.delegateQueue === OperationQueue.main)
        XCTAssertEqual(session.configuration.timeoutIntervalForRequest, 30)
        session.invalidateAndCancel()
        try catbird.send(.add(LoginMock.success))
        XCTAssertEqual(try catbird.mocks().count, 1)
    }

    /// The number of open file descriptors of this process (`/proc/self/fd`; `/dev/fd` on
    /// Apple platforms).
    private static func openDescriptors() throws -> Int {
        #if os(Linux)
        let directory = "/proc/self/fd"
        #else
        let directory = "/dev/fd"
        #endif
        return try FileManager.default.contentsOfDirectory(atPath: directory).count
    }
}
