import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Claims a database file for one server process: an exclusive `flock` on the database file
/// itself, held until ``release()`` or the process ends (the kernel drops it even after
/// `kill -9`).
///
/// Two servers on one file would each serve their own in-memory mock tables while deleting
/// each other's rows. The lock is on the file, not on a name: a symbolic link, a `./a/../db`
/// spelling or a hard link reaches the same inode, and so the same lock. Nothing is created
/// beside the database (an earlier version kept a `<db>.lock` file there).
///
/// Why `flock` on the database file is safe beside SQLite: SQLite locks with POSIX `fcntl`
/// locks, which on Linux are independent of `flock` locks. Closing any descriptor of a file
/// drops the process's POSIX locks on it, so this descriptor stays open until ``release()``,
/// which the owner calls after closing every SQLite connection on the file.
public final class DatabaseFileLock: Sendable {
    /// The database file locked.
    public let path: String
    /// Whether taking the lock created the file (it did not exist before).
    public let createdFile: Bool
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)

    /// Why a lock could not be taken.
    public enum LockError: Error, CustomStringConvertible, Sendable {
        /// Another process (or another server in this one) holds the lock.
        case inUse(database: String)
        /// The file could not be opened or created (`errno` text).
        case cannotOpen(database: String, reason: String)

        public var description: String {
            switch self {
            case let .inUse(database):
                return "database \(database) is in use by another Catbird server (the file is locked, whatever path "
                    + "that server was given); stop that server or choose another --db"
            case let .cannotOpen(database, reason):
                return "cannot open database file \(database): \(reason)"
            }
        }
    }

    /// Takes the lock on `databasePath` without waiting; creates the file, empty, when it is
    /// missing (SQLite takes an empty file as an empty database).
    /// - Throws: ``LockError/inUse(database:)`` when another holder has it,
    ///   ``LockError/cannotOpen(database:reason:)`` when the file cannot be opened read-write or
    ///   created (a missing folder, a directory, a read-only file or file system).
    public init(databasePath: String) throws(LockError) {
        path = databasePath
        var created = true
        var opened = open(databasePath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if opened < 0 && errno == EEXIST {
            created = false
            opened = open(databasePath, O_RDWR | O_CLOEXEC)
        }
        descriptor = opened
        createdFile = created
        guard descriptor >= 0 else { throw .cannotOpen(database: databasePath, reason: Self.explain(errno)) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = Self.explain(errno)
            close(descriptor)
            throw busy ? .inUse(database: databasePath) : .cannotOpen(database: databasePath, reason: reason)
        }
    }

    /// For a start-up that failed: deletes the file (with its `-wal` and `-shm`) when taking
    /// the lock created it, so a failed start leaves nothing behind, then releases the lock.
    /// Call after closing every SQLite connection on the file.
    public func discardCreatedFile() {
        if createdFile {
            for suffix in ["-wal", "-shm", ""] { unlink(path + suffix) }
        }
        release()
    }

    /// `strerror`'s text, with what to do for the usual cases.
    private static func explain(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        switch code {
        case ENOENT: return "\(text) (the folder does not exist)"
        case EISDIR: return "\(text) (give a file path, not a folder)"
        case EACCES, EPERM, EROFS: return "\(text) (the server needs to read and write the file and its folder)"
        default: return text
        }
    }

    /// Releases the lock (closing the descriptor releases the `flock`). Idempotent. Call it
    /// after closing every SQLite connection on the file (see the type's documentation).
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(descriptor)
    }

    deinit {
        release()
    }
}
