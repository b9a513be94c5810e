@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
@testable import CatbirdServer
import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// Regression (tester finding tester61a-F1): beside busy processes the matching lane's nice-10
/// thread got 50 ms of work before the wall cap ended its search, and the request's `problem`
/// said its expression "ran out of the 100 ms evaluation budget". A search the wall cap ends
/// now names the cap and the work the thread had. Here a header lookup that sleeps (as a
/// thread waiting for a core does) stands for the busy machine.
final class StarvedMatchingReasonTests: StorageTestCase {
    func testASearchEndedByTheWallCapIsNamedSo() throws {
        let connection = try Database(path: databasePath("starved.sqlite"), mode: .readWrite)
        _ = try Schema.migrate(connection)
        let mocks = try MockStore(database: SerialDatabase(connection))
        let tenant = TenantID("busy")
        let regexp = #""orderId":\s*"[a-z0-9]+-end""#
        _ = try mocks.update(
            RequestPattern(method: .POST, url: .equal("/lin"), headers: ["X-Wait": .equal("yes")], body: BodyPattern(kind: .regexp, value: regexp)),
            response: ResponseMock(status: 200), tenant: tenant)
        let body = Array((#"{"pad":""# + String(repeating: "x", count: 20_000) + #"","orderId": "abc123-end"}"#).utf8)
        let budget = Duration.milliseconds(20)
        func serve(waiting: TimeInterval) -> [SkippedMock] {
            var skipped: [SkippedMock] = []
            _ = mocks.serve(
                tenant: tenant, method: "POST", target: "/lin",
                headerValue: { _ in Thread.sleep(forTimeInterval: waiting); return "yes" }, body: body, budget: budget,
                outOfTime: { skipped.append(.outOfTime($0)) })
            return skipped
        }
        // Past 30 budgets of wall time (600 ms) before the body's search: the cap ends it.
        let starved = try XCTUnwrap(serve(waiting: 0.65).first, "the mock was skipped")
        let worked = try XCTUnwrap(starved.starvedAfter, "the cap ended it")
        XCTAssertLessThan(worked, budget)
        let reason = NotFoundAnswer.outOfTimeSummary(starved, for: tenant)
        XCTAssertTrue(
            reason.hasSuffix(
                "of tenant \"busy\" was skipped: its regular expression ran out of the 100 ms evaluation budget's wall-time cap: "
                    + "3 s passed while the busy machine gave the matching thread \(Int(worked.milliseconds)) ms of CPU "
                    + "(docs/matching.md#evaluation-budget)"), reason)
        // Within the cap the thread had its budget of work: the mock answered (or, on a machine
        // so loaded that 20 ms of work did not finish the search, the work ran out, not the cap).
        let inTime = serve(waiting: 0.1)
        XCTAssertNil(inTime.first?.starvedAfter, "\(inTime.map { NotFoundAnswer.outOfTimeSummary($0, for: tenant) })")
    }
}
