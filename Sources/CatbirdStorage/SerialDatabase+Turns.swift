import CatbirdSupport
import Foundation
import Synchronization

extension SerialDatabase {
    /// A first-come, first-served lock (a ticket lock): each ``take()`` draws the next ticket
    /// and blocks until it is served; ``give()`` serves the next. No spinning: waiters sleep on
    /// a condition.
    ///
    /// `@unchecked Sendable`: its counters and `abandoned` are read and written only while
    /// `condition` is locked, and `waiting` is an atomic.
    final class Turns: @unchecked Sendable {
        private let condition = NSCondition()
        /// Tickets drawn so far; the next ``take()`` draws this one.
        private var drawn: UInt64 = 0
        /// The ticket whose holder has the turn (or has it next, when none is drawn).
        private var serving: UInt64 = 0
        /// Tickets whose holders stopped waiting (``take(until:)``): skipped when served.
        private var abandoned = Set<UInt64>()
        /// Threads blocked in ``take()``: read without the lock (``SerialDatabase/othersWaiting``).
        let waiting = Atomic<Int>(0)

        /// Blocks until this caller's turn; every ``take()`` that came before has had its turn.
        func take() {
            condition.lock()
            let ticket = drawn
            drawn += 1
            if ticket != serving {
                waiting.add(1, ordering: .relaxed)
                repeat { condition.wait() } while ticket != serving
                waiting.subtract(1, ordering: .relaxed)
            }
            condition.unlock()
        }

        /// ``take()``, giving up at `deadline` when the turn has not come by then (tester
        /// finding tester45a-F1: a control change whose 5 s were over waited in line behind
        /// other tenants' later changes, each waiting out another process's lock: 19 s).
        /// - Returns: whether the caller has the turn (then it must ``give()`` it back); false:
        ///   its ticket is skipped when its turn comes.
        func take(until deadline: ContinuousClock.Instant) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let ticket = drawn
            drawn += 1
            guard ticket != serving else { return true }
            waiting.add(1, ordering: .relaxed)
            defer { waiting.subtract(1, ordering: .relaxed) }
            while ticket != serving {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero || (!condition.wait(until: Date(timeIntervalSinceNow: left.timeInterval)) && ticket != serving) {
                    abandoned.insert(ticket)
                    return false
                }
            }
            return true
        }

        /// Ends the caller's turn (after its ``take()``) and hands it to the next ticket that
        /// still waits.
        func give() {
            condition.lock()
            serving += 1
            while abandoned.remove(serving) != nil { serving += 1 }
            if drawn != serving { condition.broadcast() }
            condition.unlock()
        }
    }
}
