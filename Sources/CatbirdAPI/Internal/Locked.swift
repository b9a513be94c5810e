import Foundation

/// A value guarded by a lock, for state shared across threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `withLock`, under `lock`,
    // so no two threads ever touch it at once; `lock` itself is never replaced.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    var current: Value {
        withLock { $0 }
    }
}
