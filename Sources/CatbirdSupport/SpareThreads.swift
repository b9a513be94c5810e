import Foundation
import Synchronization

/// At most ``limit`` extra threads for work that one caller may share when a core is free (the
/// other half of a long journal count): ``offer(_:)`` starts a thread for a job at once while
/// fewer than ``limit`` run, and refuses otherwise, so the caller does the work itself and
/// never waits for a thread. Each thread runs one job at the given nice value and ends.
public final class SpareThreads: Sendable {
    /// The most threads running at once.
    public let limit: Int
    private let name: String
    private let niceness: Int32
    private let running = Atomic<Int>(0)

    /// - Parameters:
    ///   - limit: the most threads running at once (0: every offer is refused).
    ///   - name: the threads' name (``Foundation/Thread/named(_:_:)``: the kernel keeps 15 bytes).
    ///   - niceness: the threads' nice value (Linux `setpriority` on the thread, 0 to 19): work
    ///     given 10 yields the cores to the server's workers when both want them.
    public init(limit: Int, name: String, niceness: Int32) {
        self.limit = max(0, limit)
        self.name = name
        self.niceness = niceness
    }

    /// Starts `job` on a thread of its own and returns true, or returns false at once when
    /// ``limit`` threads are running.
    public func offer(_ job: @escaping @Sendable () -> Void) -> Bool {
        var current = running.load(ordering: .relaxed)
        while current < limit {
            let (claimed, found) = running.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if claimed {
                let niceness = self.niceness
                let thread = Thread.named(name) { [self] in
                    // Linux keeps the nice value per thread: `who` 0 is the calling thread (setpriority(2), NOTES).
                    if niceness > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                    job()
                    running.subtract(1, ordering: .releasing)
                }
                thread.start()
                return true
            }
            current = found
        }
        return false
    }
}
