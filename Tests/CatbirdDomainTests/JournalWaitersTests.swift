@testable import CatbirdDomain
import Foundation
import Synchronization
import XCTest

/// `JournalWaiters`: each waiter is woken exactly once, by a commit of its tenant past its id,
/// by its timeout, or by stop; a commit that came first wakes a new waiter at once.
final class JournalWaitersTests: XCTestCase {
    private final class Wakes: Sendable {
        let values = Mutex<[Bool]>([])
        func record(_ committed: Bool) { values.withLock { $0.append(committed) } }
        var all: [Bool] { values.withLock { $0 } }
    }

    func testACommitOfTheTenantPastTheIdWakesOnceAndOthersDoNot() {
        let waiters = JournalWaiters()
        let wakes = Wakes()
        waiters.wait(for: TenantID("a"), after: 10, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        waiters.committed([TenantID("b"): 50])  // another tenant
        waiters.committed([TenantID("a"): 10])  // not past the id
        XCTAssertEqual(wakes.all, [])
        XCTAssertEqual(waiters.count, 1)
        waiters.committed([TenantID("a"): 11])
        waiters.committed([TenantID("a"): 12])
        XCTAssertEqual(wakes.all, [true], "woken once")
        XCTAssertEqual(waiters.count, 0)
    }

    /// Tester finding T11-F3: an entry per tenant ever seen was kept for the process's life
    /// (250,000 one-off shards). A tenant's id is remembered for one to two generations of
    /// `rememberFor`, so a commit just before a waiter registers still wakes it at once.
    func testCommittedIdsAreLetGoAfterTwoGenerationsAndWakeAtOnceWithinThem() {
        let waiters = JournalWaiters(rememberFor: .milliseconds(200))
        let wakes = Wakes()
        for index in 0..<1_000 { waiters.committed([TenantID("shard-\(index)"): Int64(index + 1)]) }
        XCTAssertEqual(waiters.rememberedTenants, 1_000)
        usleep(250_000)
        waiters.committed([TenantID("busy"): 2_000])  // a new generation: the shards' ids are the previous one's
        waiters.wait(for: TenantID("shard-7"), after: 7, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        XCTAssertEqual(wakes.all, [true], "shard-7's commit of id 8 is still remembered")
        XCTAssertEqual(waiters.rememberedTenants, 1_001)
        usleep(250_000)
        waiters.committed([TenantID("busy"): 2_001])
        XCTAssertEqual(waiters.rememberedTenants, 1, "only the tenant that wrote in the last generation")
        waiters.wait(for: TenantID("shard-7"), after: 8, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        XCTAssertEqual(wakes.all, [true], "nothing of shard-7 past 8: it waits")
        XCTAssertEqual(waiters.count, 1)
        waiters.committed([TenantID("shard-7"): 2_002])
        XCTAssertEqual(wakes.all, [true, true])
    }

    func testAnEntryCommittedBeforeWaitingWakesAtOnce() {
        let waiters = JournalWaiters()
        let wakes = Wakes()
        waiters.committed([TenantID("a"): 7])
        waiters.wait(for: TenantID("a"), after: 6, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        XCTAssertEqual(wakes.all, [true])
        XCTAssertEqual(waiters.count, 0)
    }

    func testTheTimeoutWakesWithFalseAndALaterCommitDoesNothing() {
        let waiters = JournalWaiters()
        let wakes = Wakes()
        waiters.wait(for: TenantID("a"), after: 0, timeout: .milliseconds(100)) { wakes.record($0 != .timedOut) }
        let deadline = Date().addingTimeInterval(10)
        while wakes.all.isEmpty && Date() < deadline { usleep(5000) }
        XCTAssertEqual(wakes.all, [false])
        waiters.committed([TenantID("a"): 1])
        XCTAssertEqual(wakes.all, [false])
    }

    func testStopWakesEveryWaiterWithFalseAndRefusesNewOnes() {
        let waiters = JournalWaiters()
        let wakes = Wakes()
        for index in 0..<5 {
            waiters.wait(for: TenantID("t\(index)"), after: 0, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        }
        waiters.stop()
        XCTAssertEqual(wakes.all, [false, false, false, false, false])
        waiters.wait(for: TenantID("late"), after: 0, timeout: .seconds(30)) { wakes.record($0 != .timedOut) }
        XCTAssertEqual(wakes.all.count, 6)
        XCTAssertEqual(wakes.all.last, false)
        XCTAssertEqual(waiters.count, 0)
    }
}
