import CatbirdSupport
import Foundation
import XCTest

/// ``ThreadCPULimit``, the near-miss search's 50 ms (``MockStore/nearMissTimeLimit``): time the
/// thread spends off a core does not count. On the wall clock a worker descheduled on a busy
/// machine ran out of it before it had compared the mocks HeaderLookupScaleTests checks (about
/// 2 % of runs); a sleep is such a wait, made certain.
final class ThreadCPULimitTests: XCTestCase {
    func testTimeOffTheCoreIsNotSpentAndWorkIs() {
        let limit = Duration.milliseconds(40)
        let cpuStart = ThreadCPUTime.now()
        let start = ContinuousClock.now
        var cpuLimit = ThreadCPULimit(limit, from: start)
        // Work past the lead, checking as a search does: the CPU clock is read once.
        while ContinuousClock.now - start < .milliseconds(2) { XCTAssertTrue(cpuLimit.hasTimeLeft()) }
        // Off the core for longer than the whole limit: a wall-clock deadline would be spent.
        usleep(60_000)
        XCTAssertGreaterThan(ContinuousClock.now - start, limit)
        XCTAssertTrue(cpuLimit.hasTimeLeft(), "60 ms asleep counted as spent")
        // Then work until it is spent: about the limit of CPU time in all (a loaded machine may
        // take some of the first 2 ms off the limit, which the lower bound allows).
        var checks = 0
        while cpuLimit.hasTimeLeft() { checks += 1 }
        let spent = ThreadCPUTime.now() - cpuStart
        XCTAssertGreaterThan(checks, 0)
        XCTAssertGreaterThanOrEqual(spent, limit / 2, "stopped after \(spent) of CPU time")
        XCTAssertLessThan(spent, limit + .milliseconds(10), "stopped after \(spent) of CPU time")
        XCTAssertFalse(cpuLimit.hasTimeLeft(), "once spent, it stays spent")
    }
}
