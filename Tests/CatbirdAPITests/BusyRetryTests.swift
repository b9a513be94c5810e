import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A call Catbird refuses with 429 (its tenant's fair share of SQL queries or slow control
/// calls taken) is sent again by the client, not thrown (tester finding tester48c-F1: a client
/// "shared between threads and tasks" failed three `async let` SQL queries every time).
final class BusyRetryTests: CatbirdTestCase {
    /// A query that runs tens of milliseconds (a few hundred in a debug build): 100,000 recursive rows.
    private static let slowSQL = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c"

    /// tester48c-F1, its first case: three `async let` SQL queries on one client (the server
    /// takes 2 of a tenant at once, running or waiting, and refused the third with 429).
    func testThreeConcurrentSQLQueriesOnOneClientAllAnswer() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("c2-sql")
        async let a = catbird.sql(Self.slowSQL)
        async let b = catbird.sql(Self.slowSQL)
        async let c = catbird.sql(Self.slowSQL)
        let answers = try await [a, b, c]
        XCTAssertEqual(answers.map { $0.rows }, Array(repeating: [[100_000]], count: 3))
    }

    /// tester48c-F1, its second case: a task group of 50 tasks each making a count, a mock
    /// listing or an SQL query on one client (more than 4 slow calls of one tenant at once).
    func testFiftyTasksOnOneClientAllAnswer() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("many-tasks")
        let feed = RequestPattern(method: .GET, url: "/feed")
        try catbird.send(.update(feed, ResponseMock(status: 200)))
        XCTAssertEqual(try server.appRequest("GET", "/feed", parallelId: "many-tasks").status, 200)
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                group.addTask {
                    switch index % 3 {
                    case 0: return try await catbird.count(matching: feed)
                    case 1: return try await catbird.mocks().count
                    default: return Int(try await catbird.sql("SELECT count(*) FROM requests WHERE url = '/feed'").rows.first?.first?.intValue ?? -1)
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(answers, Array(repeating: 1, count: 50))
    }

    /// Cancelling a task whose call is being sent again ends it at once with
    /// `URLError(.cancelled)`, not after the queries ahead of it.
    func testCancellingACallBeingRetriedEndsIt() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("cancel-retry")
        // Two long queries take the tenant's share (one running, one waiting).
        let long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000000) SELECT count(*) FROM c"
        let blockers = (0..<2).map { _ in Task { try await catbird.sql(long) } }
        try await Task.sleep(nanoseconds: 150_000_000)
        let started = Date()
        let third = Task { try await catbird.sql("SELECT 1") }
        try await Task.sleep(nanoseconds: 100_000_000)
        third.cancel()
        do {
            _ = try await third.value
            XCTFail("the third query answered: it was not refused, so this test tried nothing")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "ended at its cancellation, not after the queries ahead")
        for blocker in blockers { _ = try? await blocker.value }
    }
}
