@testable import CatbirdHTTP
import Dispatch
import CatbirdTestSupport
import Foundation
import XCTest

/// ``HTTPWorkPool`` wakes a thread only for a job: a finished job signals its pool only when
/// another job waits. Until 2026-12-02 every finished job woke an idle thread of the pool,
/// which found nothing and slept again: each control call on the quick lane cost two wake-ups
/// and put one more runnable thread on a core right as its answer went out (vis13's perf sched
/// traces of the visibility benchmark). Counted by the kernel, not timed: each pool thread's
/// `voluntary_ctxt_switches` (/proc/self/task/TID/status), one per time it went to sleep.
final class WorkPoolWakeUpTests: XCTestCase {
    private let poolName = "wakeup-pool"

    func testOneJobAtATimeWakesOneThreadEach() throws {
        let pool = HTTPWorkPool<Int>(threadCount: 2, name: poolName)
        defer { pool.stop() }
        XCTAssertTrue(eventually { self.poolThreads().count == 2 }, "both threads named \(poolName)-0 and -1 run")
        XCTAssertTrue(eventually { self.allAsleep() }, "both threads wait for a job")
        let jobs = 100
        let before = try voluntarySwitches()
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<jobs {
            pool.run(key: 0) { done.signal() }
            XCTAssertEqual(done.wait(timeout: .now() + .seconds(30)), .success)
            // Each job starts with both threads asleep, so each wakes exactly who it needs.
            XCTAssertTrue(eventually { self.allAsleep() })
        }
        let switches = try voluntarySwitches() - before
        // One sleep per job for the thread that ran it; the old code added one for the woken
        // idle thread (2 per job). A few more for a lock met now and then.
        XCTAssertGreaterThanOrEqual(switches, jobs, "every job woke a sleeping thread")
        XCTAssertLessThan(switches, jobs + jobs / 4, "a finished job woke another thread for nothing")
    }

    /// Key 7 has one place: with its first job running, its second waits, and a job of key 8
    /// queued after it starts on the free thread in its stead (the free thread passed key 7 over,
    /// so key 7's second job has not started then, with no timeout to wait out); once key 7's
    /// first job finishes, the waiting one starts.
    func testAJobWaitingForItsKeysPlaceStillStartsWhenThePlaceFrees() {
        let pool = HTTPWorkPool<Int>(threadCount: 2, perKeyLimit: 1, name: poolName)
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0)
        let firstStarted = DispatchSemaphore(value: 0)
        let secondStarted = DispatchSemaphore(value: 0)
        let otherKeyRan = DispatchSemaphore(value: 0)
        let secondStartedBeforeOtherKey = Locked<Bool?>(nil)
        pool.run(key: 7) {
            firstStarted.signal()
            release.wait()
        }
        XCTAssertEqual(firstStarted.wait(timeout: .now() + .seconds(30)), .success)
        pool.run(key: 7) { secondStarted.signal() }
        pool.run(key: 8) {
            // Both threads are taken now (key 7's first job, this one): key 7's second has not
            // started unless it took key 7's place beside its first.
            secondStartedBeforeOtherKey.set(secondStarted.wait(timeout: .now()) == .success)
            otherKeyRan.signal()
        }
        XCTAssertEqual(otherKeyRan.wait(timeout: .now() + .seconds(30)), .success, "key 8's job ran on the free thread")
        XCTAssertEqual(secondStartedBeforeOtherKey.value, false, "key 7 has one place")
        release.signal()
        XCTAssertEqual(secondStarted.wait(timeout: .now() + .seconds(30)), .success, "the finished job let the waiting one start")
    }

    /// This process's threads named `poolName-0` and `poolName-1`: their /proc/self/task directories.
    private func poolThreads() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.map { "/proc/self/task/\($0)" }.filter { task in
            let comm = (try? String(contentsOfFile: "\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            return comm == "\(poolName)-0" || comm == "\(poolName)-1"
        }
    }

    /// Whether every pool thread sleeps (`State: S`).
    private func allAsleep() -> Bool {
        let threads = poolThreads()
        return threads.count == 2 && threads.allSatisfy { field("State", of: $0)?.hasPrefix("S") == true }
    }

    /// The pool threads' `voluntary_ctxt_switches`, summed.
    private func voluntarySwitches() throws -> Int {
        let threads = poolThreads()
        XCTAssertEqual(threads.count, 2)
        return try threads.reduce(0) { sum, task in
            sum + (try XCTUnwrap(field("voluntary_ctxt_switches", of: task).flatMap { Int($0) }))
        }
    }

    /// A field of /proc/self/task/TID/status, its value trimmed.
    private func field(_ name: String, of task: String) -> String? {
        guard let status = try? String(contentsOfFile: "\(task)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("\(name):") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
