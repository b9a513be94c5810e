#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value each thread keeps for itself (a POSIX thread-specific slot,
/// <https://pubs.opengroup.org/onlinepubs/9799919799/functions/pthread_key_create.html>),
/// for memos asked on every request: each worker thread reuses its own last result without a
/// lock and without sharing a cache line with the other workers. Made on a thread's first
/// use from `initial`, released when the thread ends.
///
/// Meant for `static let`s: the slot is never given back (a process has at least 128 of them).
///
/// `@unchecked Sendable`: `key` is written once by `init`, before the memo can be shared, and
/// only read afterwards; `pthread_getspecific` gives each thread the box it stored itself, so
/// no box is ever reached from two threads.
public final class PerThreadMemo<Value>: @unchecked Sendable {
    /// The thread's value, behind a pointer: changed in place through it with no dynamic
    /// exclusivity check (a class's stored `var` passed `inout` costs one on every call).
    private final class Box {
        let value: UnsafeMutablePointer<Value>
        init(_ initial: Value) {
            value = .allocate(capacity: 1)
            value.initialize(to: initial)
        }
        deinit {
            value.deinitialize(count: 1)
            value.deallocate()
        }
    }

    /// A `let`: read on every call, a class's stored `var` would cost a dynamic exclusivity check each time.
    private let key: pthread_key_t
    private let initial: () -> Value

    /// - Parameter initial: the value a thread starts with.
    public init(_ initial: @escaping @Sendable () -> Value) {
        self.initial = initial
        var made = pthread_key_t()
        let created = pthread_key_create(&made) { box in
            guard let box else { return }
            Unmanaged<AnyObject>.fromOpaque(box).release()
        }
        precondition(created == 0, "no thread-specific slot left (pthread_key_create: \(created))")
        key = made
    }

    /// Runs `body` with the calling thread's value, which it may change.
    public func with<Result>(_ body: (inout Value) -> Result) -> Result {
        if let stored = pthread_getspecific(key) {
            return body(&Unmanaged<Box>.fromOpaque(stored).takeUnretainedValue().value.pointee)
        }
        let box = Box(initial())
        pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
        return body(&box.value.pointee)
    }
}
