import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Claims a database file for one server process: an exclusive `flock` on `<path>.lock`, held
/// until ``release()`` or the process ends (the kernel drops it even after `kill -9`).
///
/// Two servers on one file would each serve their own in-memory mock tables while deleting
/// each other's rows. A separate lock file is used rather than the database file itself: a
/// second descriptor on the database would drop SQLite's own POSIX locks when closed.
public final class DatabaseFileLock: Sendable {
    /// The lock file, `<database path>.lock`. It is left in place when released.
    public let path: String
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)

    /// Why a lock could not be taken.
    public enum LockError: Error, CustomStringConvertible, Sendable {
        /// Another process holds the lock.
        case inUse(database: String, lockFile: String)
        /// The lock file could not be created or opened (`errno` text).
        case cannotOpen(lockFile: String, reason: String)

        public var description: String {
            switch self {
            case let .inUse(database, lockFile):
                return "database \(database) is in use by another Catbird server (lock \(lockFile) is held); "
                    + "stop that server or choose another --db"
            case let .cannotOpen(lockFile, reason):
                return "cannot open lock file \(lockFile): \(reason)"
            }
        }
    }

    /// Takes the lock for `databasePath` without waiting.
    /// - Throws: ``LockError/inUse(database:lockFile:)`` when another process holds it,
    ///   ``LockError/cannotOpen(lockFile:reason:)`` when the lock file cannot be opened.
    public init(databasePath: String) throws(LockError) {
        path = databasePath + ".lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotOpen(lockFile: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw busy ? .inUse(database: databasePath, lockFile: path) : .cannotOpen(lockFile: path, reason: reason)
        }
    }

    /// Releases the lock (closing the descriptor releases the `flock`). Idempotent.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(descriptor)
    }

    deinit {
        release()
    }
}
