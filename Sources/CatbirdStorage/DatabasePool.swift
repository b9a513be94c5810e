import Dispatch
import Synchronization

/// A few connections to one database file, each with one user at a time: readers that serve
/// several threads side by side, so one long read (a count over a large journal) does not
/// hold up the others.
public final class DatabasePool: Sendable {
    private let connections: [SerialDatabase]
    private let idle: Mutex<[Int]>
    /// Counts the idle connections.
    private let available: DispatchSemaphore
    /// Where the connections' environmental failures go (nil: nowhere); a connection opened
    /// apart on the same file for the same users reports to it too.
    public let faults: StorageFaults?

    /// Opens `count` (≥ 1) connections with `open`.
    /// - Parameter faults: told of the connections' environmental failures (``SerialDatabase``),
    ///   and asked before each use whether the file was truncated (``StorageFaults/checkTruncation()``).
    /// - Throws: whatever `open` throws.
    public init(count: Int, faults: StorageFaults? = nil, open: () throws -> sending Database) rethrows {
        precondition(count >= 1, "a database pool needs at least one connection")
        var connections: [SerialDatabase] = []
        for _ in 0..<count { connections.append(SerialDatabase(try open(), faults: faults, checksFile: false, checksTruncation: true)) }
        self.connections = connections
        self.faults = faults
        idle = Mutex(Array(0..<count))
        available = DispatchSemaphore(value: count)
    }

    /// Runs `body` with an idle connection, waiting while every connection is in use.
    /// - Throws: whatever `body` throws.
    public func use<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        available.wait()
        let index = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(index) }
            available.signal()
        }
        return try connections[index].use(body)
    }

    /// Closes every connection once its current user is done.
    public func close() {
        for connection in connections { connection.close() }
    }
}
