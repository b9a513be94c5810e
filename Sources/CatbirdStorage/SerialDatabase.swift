import Synchronization

/// A connection with exactly one user at a time: the owner of a ``Database`` that several
/// threads share (GRDB's "one owner per connection").
///
/// A server typically keeps two: the write connection (its writers take turns on it) and a
/// read-only connection for its own queries.
public final class SerialDatabase: Sendable {
    private let database: Mutex<Database>

    /// Takes ownership of `database`; nothing else may use it afterwards.
    public init(_ database: consuming sending Database) {
        self.database = Mutex(database)
    }

    /// Runs `body` with the connection, blocking while another thread uses it.
    /// - Throws: whatever `body` throws.
    public func use<T: Sendable>(_ body: (Database) throws -> T) throws -> T {
        try database.withLock { database throws -> T in try body(database) }
    }

    /// Closes the connection once every current user is done.
    public func close() {
        database.withLock { $0.close() }
    }
}
