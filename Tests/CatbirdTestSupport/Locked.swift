import Foundation

/// A value shared between threads of a test (a main-queue block, a completion handler, the
/// answers collected from several client threads).
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    public init(_ value: Value) { stored = value }
    public var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    public func set(_ value: Value) {
        lock.lock()
        stored = value
        lock.unlock()
    }
    /// Changes the value in place under the lock.
    public func change<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
    public func append<Element>(_ element: Element) where Value == [Element] {
        lock.lock()
        stored.append(element)
        lock.unlock()
    }
}
