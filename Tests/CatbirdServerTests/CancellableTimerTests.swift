import CatbirdSupport
import Dispatch
import Synchronization
import XCTest

/// ``CancellableTimer``: the SQL route's wait bound, cancelled when the query starts
/// (docs/protocol.md#sql), must neither answer late nor hold what it captured (the answer's
/// responder, the tenant's reservation) until its deadline.
final class CancellableTimerTests: XCTestCase {
    /// How often an action ran.
    private final class Runs: Sendable {
        let count = Atomic(0)
    }

    /// What an action captures.
    private final class Captured: Sendable {
        let runs: Runs
        init(_ runs: Runs) { self.runs = runs }
    }

    func testACancelledTimerNeverRunsAndLetsGoOfWhatItCapturedAtOnce() {
        let runs = Runs()
        var captured: Captured? = Captured(runs)
        weak let watched = captured
        let timer = CancellableTimer(after: .milliseconds(200)) { [captured] in
            captured?.runs.count.add(1, ordering: .relaxed)
        }
        captured = nil
        XCTAssertNotNil(watched, "the pending action holds what it captured")
        XCTAssertTrue(timer.cancel(), "the first cancel stops it")
        XCTAssertNil(watched, "released by the cancel, not at the deadline")
        XCTAssertFalse(timer.cancel(), "stopped once")

        // A later timer's action runs after the cancelled one's deadline has passed.
        let later = DispatchSemaphore(value: 0)
        _ = CancellableTimer(after: .milliseconds(400)) { later.signal() }
        XCTAssertEqual(later.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(runs.count.load(ordering: .relaxed), 0, "the cancelled action never ran")
    }

    func testATimerThatRanCannotBeCancelledAndRanOnce() {
        let runs = Runs()
        let ran = DispatchSemaphore(value: 0)
        let timer = CancellableTimer(after: .zero) {
            runs.count.add(1, ordering: .relaxed)
            ran.signal()
        }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(timer.cancel(), "too late: it ran")
        XCTAssertEqual(runs.count.load(ordering: .relaxed), 1)
    }
}
