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
///
/// The same descriptor tells whether the path still names the locked file while the server
/// runs (``moved()``, in DatabaseFileLock+Moved.swift), and whether the file was truncated
/// under it (``truncated()``, in DatabaseFileLock+Truncated.swift).
public final class DatabaseFileLock: Sendable {
    /// The database file locked.
    public let path: String
    /// Whether taking the lock created the file (it did not exist before, and neither did its
    /// `-wal` or `-shm`: the lock refuses those without their file, or beside an empty one).
    public let createdFile: Bool
    /// The `-wal` and `-shm` (full paths) that were beside the file when the lock was taken,
    /// before any SQLite connection of this start opened it: ``discardCreatedFile()`` removes
    /// only the others, which this start made.
    let companionsBefore: Set<String>
    /// The size in bytes of the `-wal` that was beside the file when the lock was taken, nil
    /// when there was none: a clean stop removes it, so one with changes in it was left by a
    /// run that did not stop (killed, crashed) or by another program.
    public var leftWALSize: Int64? {
        companionsBefore.contains(path + "-wal") ? Self.size(of: path + "-wal") : nil
    }
    /// Open from ``init(databasePath:)`` until ``release()``.
    let descriptor: Int32
    /// Set once by ``release()``; the descriptor may be another file's afterwards.
    let released = Atomic<Bool>(false)
    /// The file's sizes seen since ``watchSize()`` (DatabaseFileLock+Truncated.swift).
    let sizes = Mutex(SizeWatch())

    /// Why a lock could not be taken.
    public enum LockError: Error, CustomStringConvertible, Sendable {
        /// Another process (or another server in this one) holds the lock.
        case inUse(database: String, holder: (pid: Int32, command: String, isCatbird: Bool)? = nil)
        /// The file could not be opened or created (`errno` text).
        case cannotOpen(database: String, reason: String)
        /// The file was missing but its `-wal` or `-shm` (named in full) were there: another
        /// process may be using them, e.g. a server whose file was moved or deleted while it ran
        /// (tester finding T13-F12: a start removed them, and with them all that server's data).
        /// `emptyFile`: an empty file was at the path (left as it was): no SQLite database in WAL
        /// mode is empty (switching to WAL writes the first page before any `-wal` exists), so
        /// they are not its own (a `touch` after a delete, a racing start that created it, or the
        /// file emptied under a server, which then kept them: tester21b-F13). `holder`: a process
        /// with the `-shm` open (``DatabaseCompanions``' `holder(ofSHMBeside:)`), nil when none has.
        case companionsWithoutDatabase(database: String, files: [String], emptyFile: Bool, holder: Int32?)
        /// Something that is not a regular file is at the path (after symbolic links): `kind`
        /// says what (``DatabaseFileLock/fileKind(atPath:)``, e.g. "a block device"). Refused before it is opened
        /// for writing (tester finding T13B-F7: SQLite took a block device for an empty file and
        /// wrote its first pages; `/dev/null` got a `/dev/null-journal` beside it).
        case notARegularFile(database: String, kind: String)
        /// The file has another name (a hard link) in its folder, `other`, with a `-wal` of
        /// changes beside it (``DatabaseFileLock/otherNameWithWAL(of:path:)``), and none beside
        /// `database`: a crashed server's changes that a start through this name would not see.
        case walUnderAnotherName(database: String, other: String, walSize: Int64)

        public var description: String {
            switch self {
            case let .inUse(database, holder):
                if let holder, !holder.isCatbird {
                    return "database \(database) is locked (flock) by process \(holder.pid) (\(holder.command)), which is not a Catbird "
                        + "server; wait for it to end, or choose another --db"
                }
                let who = holder.map { " (process \($0.pid))" } ?? ""
                return "database \(database) is in use by another Catbird server\(who) (the file is locked, whatever path "
                    + "that server was given); stop that server or choose another --db"
            case let .cannotOpen(database, reason):
                return "cannot open database file \(database): \(reason)"
            case let .companionsWithoutDatabase(database, files, emptyFile, holder):
                return "database \(database): \(Self.companionsReason(files, emptyFile: emptyFile, holder: holder))"
            case let .notARegularFile(database, kind):
                return "database \(database): \(Self.notARegularFileReason(database, kind: kind))"
            case let .walUnderAnotherName(database, other, walSize):
                return "database \(database): \(DatabaseFileLock.walUnderAnotherNameReason(database, other: other, walSize: walSize))"
            }
        }

        /// Why a `--db` that is `kind` (``DatabaseFileLock/fileKind(atPath:)``) is refused, and what to do.
        public static func notARegularFileReason(_ database: String, kind: String) -> String {
            "\(database) is \(kind), not a regular file: give a regular file's path (nothing was opened for writing, "
                + "nothing created beside it)"
        }

        /// Why `files` without their database (`emptyFile`: beside an empty file) stop a start, and
        /// what to do; `holder`: the process with the `-shm` open, if any. Says "another process"
        /// only when one has them open: a server whose file was emptied under it leaves them at
        /// its stop, and the restart blamed "another process" (tester21b-F13).
        public static func companionsReason(_ files: [String], emptyFile: Bool, holder: Int32?) -> String {
            let found = "found \(files.joined(separator: " and ")) "
                + (emptyFile ? "beside an empty database file (0 bytes)" : "without the database file itself") + ": "
            if let holder {
                return found + "process \(holder) has the -shm open, so another process is using them (a server whose file was "
                    + "moved, deleted or emptied while it ran keeps its changes not yet copied into the file in the -wal); "
                    + "nothing was changed. Stop that process, then put its database file back beside them, or move them away "
                    + "to start afresh"
            }
            guard emptyFile else {
                return found + "no process has them open: a server whose file was moved or deleted while it ran, or a crashed "
                    + "one, left them (the -wal may hold changes not yet copied into that file); nothing was changed. Put the "
                    + "database file back beside them, or move them away to start afresh"
            }
            return found + "no process has them open: a server whose file was emptied (truncated) while it ran left them at "
                + "its stop, or one whose file was deleted before an empty one was put at the path, or a crashed one (the -wal "
                + "holds changes since that file's last checkpoint, not the rest of its pages); nothing was changed. Restore a "
                + "copy of the database file, or move all three away to start afresh"
        }
    }

    /// Takes the lock on `databasePath` without waiting; creates the file, empty, when it is
    /// missing (SQLite takes an empty file as an empty database).
    /// - Throws: ``LockError/inUse(database:)`` when another holder has it,
    ///   ``LockError/cannotOpen(database:reason:)`` when the file cannot be opened read-write or
    ///   created (a missing folder, a directory, a read-only file or file system, a symbolic
    ///   link to nothing), ``LockError/companionsWithoutDatabase(database:files:emptyFile:holder:)`` when
    ///   the file is missing or empty but its `-wal` or `-shm` is there (a file it created is
    ///   removed again; an empty one that was there is left as it was),
    ///   ``LockError/notARegularFile(database:kind:)`` when a device, FIFO or socket is at the
    ///   path (checked before opening it, and again on the opened descriptor),
    ///   ``LockError/walUnderAnotherName(database:other:walSize:)`` when another name of the
    ///   file in its folder has a `-wal` of changes and this one has none.
    public init(databasePath: String) throws(LockError) {
        path = databasePath
        var created = true
        var opened = open(databasePath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if opened < 0 && errno == EEXIST {
            created = false
            if let kind = Self.fileKind(atPath: databasePath) {
                throw .notARegularFile(database: databasePath, kind: kind)
            }
            // O_NONBLOCK and O_NOCTTY: a FIFO or terminal put at the path since the check above is
            // neither waited for nor made this process's terminal; the `fstat` below refuses it.
            opened = open(databasePath, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        }
        descriptor = opened
        createdFile = created
        guard descriptor >= 0 else {
            let code = errno
            throw .cannotOpen(database: databasePath, reason: Self.explain(code, path: databasePath, existed: !created))
        }
        // After reading `errno` above, which `lstat` would overwrite.
        companionsBefore = Set(["-wal", "-shm"].map { databasePath + $0 }.filter(Self.exists))
        if let kind = Self.fileKind(descriptor: descriptor) {
            release()  // not `close`: every property is set, so `deinit` runs and would close it again
            throw .notARegularFile(database: databasePath, kind: kind)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = Self.explain(errno, path: databasePath, existed: true)
            let holder = busy ? FileLockHolder.holder(of: descriptor) : nil
            release()  // not `close`: every property is set, so `deinit` runs and would close it again
            throw busy ? .inUse(database: databasePath, holder: holder) : .cannotOpen(database: databasePath, reason: reason)
        }
        // Checked holding the lock, so no other start can open the file created here before it is
        // removed. An empty file that was there is no database either, and SQLite deletes the
        // -wal beside an empty file as it opens it (checked with 3.40.1), with whatever changes of
        // another server it held (2026-12-02: only a file created here was checked).
        let empty = created || Self.isEmpty(descriptor)
        let companions = empty ? ["-wal", "-shm"].map { databasePath + $0 }.filter(companionsBefore.contains) : []
        guard companions.isEmpty else {
            if created { unlink(databasePath) }
            release()
            throw .companionsWithoutDatabase(
                database: databasePath, files: companions, emptyFile: !created, holder: DatabaseCompanions.holder(ofSHMBeside: databasePath))
        }
        if !created, !companionsBefore.contains(databasePath + "-wal"),
           let (other, walSize) = Self.otherNameWithWAL(of: descriptor, path: databasePath) {
            release()
            throw .walUnderAnotherName(database: databasePath, other: other, walSize: walSize)
        }
    }

    /// For a start-up that failed: deletes the file (with its `-wal` and `-shm`) when taking
    /// the lock created it, so a failed start leaves nothing behind, then releases the lock.
    /// The `-wal` and `-shm` removed are this start's own: ``init(databasePath:)`` refuses a
    /// missing file whose `-wal` or `-shm` is there (tester finding T13-F12: this removed a
    /// running server's). Call after closing every SQLite connection on the file.
    ///
    /// Of an existing file, removes the `-wal` and `-shm` this start made beside it, which
    /// SQLite leaves when only a read-only connection opened the file (the start-up check that
    /// refused a corrupt or truncated file): left there, they made a second refusal, "found
    /// …-wal and …-shm without the database file itself", once the file was moved away as the
    /// first advised (tester finding tester21b-F2). Only those that were not there when the
    /// lock was taken (``companionsBefore``), a `-wal` only while empty (one holding changes is
    /// kept: SQLite replays it), and neither while another process has the `-shm` open (the
    /// `sqlite3` shell opened the file meanwhile).
    public func discardCreatedFile() {
        if createdFile {
            for suffix in ["-wal", "-shm", ""] { unlink(path + suffix) }
        } else if DatabaseCompanions.holder(ofSHMBeside: path) == nil {
            let wal = path + "-wal", shm = path + "-shm"
            if !companionsBefore.contains(wal), Self.size(of: wal) == 0 { unlink(wal) }
            if !companionsBefore.contains(shm) { unlink(shm) }  // only an index: SQLite rebuilds it from a -wal kept
        }
        release()
    }

    /// Whether the open file `descriptor` holds no bytes (or cannot be read with `fstat`).
    private static func isEmpty(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) != 0 || status.st_size == 0
    }

    /// The size of the regular file at `path` (not following a final symbolic link); nil when
    /// there is none.
    public static func size(of path: String) -> Int64? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// Whether anything (a dangling symbolic link too) is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// `strerror`'s text, with what to do for the usual cases. `existed`: something was at
    /// `path` (creating it failed with `EEXIST`), so `ENOENT` means a symbolic link to nothing
    /// (tester finding T13-F13: it said "the folder does not exist").
    private static func explain(_ code: Int32, path: String, existed: Bool) -> String {
        let text = String(cString: strerror(code))
        switch code {
        case ENOENT:
            guard existed, let target = linkTarget(path) else { return "\(text) (the folder does not exist)" }
            return "\(text) (it is a symbolic link to \(target), which does not exist)"
        case EISDIR: return "\(text) (give a file path, not a folder)"
        case EACCES, EPERM, EROFS: return "\(text) (the server needs to read and write the file and its folder)"
        default: return text
        }
    }

    /// The target of the symbolic link at `path`; nil when `path` is not one.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
