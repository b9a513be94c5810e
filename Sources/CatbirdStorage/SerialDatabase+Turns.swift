import Foundation
import Synchronization

extension SerialDatabase {
    /// A first-come, first-served lock (a ticket lock): each ``take()`` draws the next ticket
    /// and blocks until it is served; ``give()`` serves the next. No spinning: waiters sleep on
    /// a condition.
    ///
    /// `@unchecked Sendable`: its two counters are read and written only while `condition` is
    /// locked, and `waiting` is an atomic.
    final class Turns: @unchecked Sendable {
        private let condition = NSCondition()
        /// Tickets drawn so far; the next ``take()`` draws this one.
        private var drawn: UInt64 = 0
        /// The ticket whose holder has the turn (or has it next, when none is drawn).
        private var serving: UInt64 = 0
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

        /// Ends the caller's turn (after its ``take()``) and hands it to the next ticket.
        func give() {
            condition.lock()
            serving += 1
            if drawn != serving { condition.broadcast() }
            condition.unlock()
        }
    }
}
