import CSQLite

/// Stopping a connection's statements at a deadline
/// (<https://www.sqlite.org/c3ref/progress_handler.html>).
extension Database {
    /// Runs `body` with a progress handler that interrupts any statement of this connection
    /// once `deadline` has passed (checked every 100 virtual-machine instructions: a few rows of
    /// a simple scan, so a slow function called per row, such as a regular expression, is
    /// stopped within a few calls of the deadline); the interrupted statement fails with
    /// `SQLITE_INTERRUPT`. The handler is removed afterwards.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: ``DeadlinePassed`` when `body` failed because the deadline passed; whatever
    ///   else `body` throws.
    public func withDeadline<T>(_ deadline: ContinuousClock.Instant, _ body: () throws -> T) throws -> T {
        let handle = connection.open("Database")
        let state = Unmanaged.passRetained(DeadlineState(deadline))
        defer { state.release() }
        sqlite3_progress_handler(handle, 100, { context in
            Unmanaged<DeadlineState>.fromOpaque(context!).takeUnretainedValue().check()
        }, state.toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        do {
            return try body()
        } catch {
            if state.takeUnretainedValue().passed { throw DeadlinePassed() }
            throw error
        }
    }
}

/// A statement run under ``Database/withDeadline(_:_:)`` was interrupted at the deadline.
public struct DeadlinePassed: Error, Sendable {}

private final class DeadlineState {
    let deadline: ContinuousClock.Instant
    var passed = false
    init(_ deadline: ContinuousClock.Instant) { self.deadline = deadline }

    /// Nonzero (interrupt) once the deadline has passed.
    func check() -> Int32 {
        if ContinuousClock.now >= deadline { passed = true }
        return passed ? 1 : 0
    }
}
