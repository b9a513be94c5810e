import CSQLite
import CatbirdSupport
import Dispatch
import Synchronization

extension Database {
    /// Runs `body` and, should it still be running at `deadline`, interrupts this connection's
    /// statements from another thread (`sqlite3_interrupt`,
    /// <https://www.sqlite.org/c3ref/interrupt.html>): SQLite checks the flag at every loop
    /// step, so a statement whose steps are each heavy (a large value built per row) stops
    /// within one step of the deadline instead of within ``withDeadline(_:_:)``'s count of
    /// instructions. The interrupted statement fails with `SQLITE_INTERRUPT`. A flag raised
    /// after the statement ended is cleared by SQLite when this connection's next statement
    /// is prepared or started (no statement is active then).
    ///
    /// The connection must not be closed while `body` runs (its owner serialises both).
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func interrupting<T, E: Error>(at deadline: ContinuousClock.Instant, _ body: () throws(E) -> T) throws(E) -> T {
        let watch = InterruptWatch(handle: connection.open("Database"))
        let delay = ContinuousClock.now.duration(to: deadline)
        DispatchQueue.global().asyncAfter(deadline: .now() + (delay > .zero ? delay : .zero).dispatchInterval) {
            watch.interrupt()
        }
        defer { watch.finish() }
        return try body()
    }
}

/// One ``Database/interrupting(at:_:)`` call's connection, interrupted only while the call runs.
///
/// `@unchecked Sendable`: the handle is used from the timer's thread only under `running`'s
/// lock and only while `running` is true, and `sqlite3_interrupt` is the one SQLite call made
/// for another thread's use; the call that owns the connection sets `running` to false (under
/// the same lock) before it returns, so the handle is never touched after the owner could
/// close it.
private final class InterruptWatch: @unchecked Sendable {
    private let handle: OpaquePointer
    private let running = Mutex(true)

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    func interrupt() {
        running.withLock { running in
            if running { sqlite3_interrupt(handle) }
        }
    }

    func finish() {
        running.withLock { $0 = false }
    }
}
