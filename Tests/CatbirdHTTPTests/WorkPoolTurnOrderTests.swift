@testable import CatbirdHTTP
import CatbirdTestSupport
import Dispatch
import Foundation
import XCTest

/// Which waiting job ``HTTPWorkPool`` starts when a thread frees: the job of the key whose last
/// job started longest ago. Tester finding tester20b-F3: with plain round robin an idle key's
/// job queued behind a turn of every busy key (twelve tenants each keeping two 2-second counts
/// queued on the slow lane's 4 threads made an idle tenant's count wait 6-8 s and its 2-second
/// wait take 14-16 s). Ordered by semaphores, not timed.
final class WorkPoolTurnOrderTests: XCTestCase {
    /// The finding's shape on a small pool: 4 threads, 2 jobs at once per key, twelve busy keys
    /// that each had a job run, then three jobs each queued (every thread busy), then one job of
    /// an idle key. The next
    /// thread to free starts the idle key's job, not the next busy key's.
    func testAnIdleKeysJobStartsWhenTheNextThreadFrees() {
        let pool = HTTPWorkPool<String>(threadCount: 4, perKeyLimit: 2, name: "turn-order")
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0)
        let started = Locked<[String]>([])
        let startedOne = DispatchSemaphore(value: 0)
        let job: @Sendable (String) -> @Sendable () -> Void = { key in
            {
                started.change { $0.append(key) }
                startedOne.signal()
                release.wait()
            }
        }
        // The busy keys have kept the pool busy: each had a job run before.
        let warmedUp = DispatchSemaphore(value: 0)
        for index in 0..<12 { pool.run(key: "busy-\(index)") { warmedUp.signal() } }
        for _ in 0..<12 { XCTAssertEqual(warmedUp.wait(timeout: .now() + 10), .success) }
        for round in 0..<3 {
            for index in 0..<12 { pool.run(key: "busy-\(index)", job("busy-\(index)#\(round)")) }
        }
        for _ in 0..<4 { XCTAssertEqual(startedOne.wait(timeout: .now() + 10), .success) }
        XCTAssertEqual(started.value.count, 4, "every thread busy")
        pool.run(key: "idle", job("idle"))
        release.signal()  // one running job ends
        XCTAssertEqual(startedOne.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(started.value.last, "idle", "started after \(started.value)")
        // The busy keys still take turns among themselves: the next four are four keys not yet
        // served, each its first job, in the order they queued.
        for _ in 0..<4 {
            release.signal()
            XCTAssertEqual(startedOne.wait(timeout: .now() + 10), .success)
        }
        XCTAssertEqual(Array(started.value.suffix(4)), ["busy-4#0", "busy-5#0", "busy-6#0", "busy-7#0"])
        for _ in 0..<40 { release.signal() }
    }
}
