import Synchronization

/// A number changed after every change of any tenant's mock table: a mock added, replaced or
/// removed, a limit used up, a used-up mock given back, a tenant's mocks cleared or dropped.
/// Hits and remaining limits that leave a mock in its table do not change it.
///
/// Each number is issued once in the process (from one counter shared by every store), so a
/// number once left is never current again, and two stores (two servers in one process) never
/// share one. What was computed from the tables while the number was the one read before the
/// computation holds as long as it still is (``MockStore/generation``): every change sets a new
/// number after it is made, while its table's lock is held, so a reader that sees a number has
/// seen (through that lock) every change made before it was set.
final class MockTablesGeneration: Sendable {
    private static let issued = Atomic<UInt64>(0)
    private let value: Atomic<UInt64>

    init() {
        value = Atomic(Self.issue())
    }

    private static func issue() -> UInt64 {
        issued.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The current number (read before the computation it validates).
    var current: UInt64 { value.load(ordering: .acquiring) }

    /// Sets a new number; called after the change it announces is made.
    func raise() {
        value.store(Self.issue(), ordering: .releasing)
    }
}
