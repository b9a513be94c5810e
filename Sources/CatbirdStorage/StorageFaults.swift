import CSQLite
import Foundation
import Synchronization

/// What is wrong with the database file right now, as the connections that use it have found:
/// the latest environmental failure (a full disk, a read-only or vanished file, a disk I/O
/// error, corruption; ``SQLiteError/isEnvironmental`` less busy and locked, which pass), kept
/// until a later write commits. A server reports it on its health route.
///
/// Fed by ``SerialDatabase/use(_:)`` of the connections given it: a failure records, a call
/// that changed rows without failing clears (a commit went through, so the file is writable
/// again).
public final class StorageFaults: Sendable {
    /// One fault: what it means for a user, SQLite's own line, and since when it has lasted.
    public struct Fault: Sendable, Equatable {
        /// ``SQLiteError/environmentalReason``, e.g. `the disk holding the database is full`.
        public let reason: String
        /// The failing error in full (`SQLiteError.description`).
        public let detail: String
        /// When the first failure of this run of failures happened.
        public let since: Date
    }

    private let state = Mutex<Fault?>(nil)

    public init() {}

    /// The fault now; nil when the file works as far as anyone knows.
    public var current: Fault? {
        state.withLock { $0 }
    }

    /// Records `error` when it is a fault of the file's environment (not busy or locked).
    /// Keeps the first failure's time while failures follow one another.
    public func record(_ error: SQLiteError) {
        guard error.isEnvironmental, error.code != SQLITE_BUSY, error.code != SQLITE_LOCKED,
              let reason = error.environmentalReason else { return }
        state.withLock { fault in
            fault = Fault(reason: reason, detail: error.description, since: fault?.since ?? Date())
        }
    }

    /// Forgets the fault: a write has just committed.
    public func clear() {
        state.withLock { $0 = nil }
    }
}
