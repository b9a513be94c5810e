import CSQLite
import CatbirdDomain
import CatbirdStorage
import CatbirdSupport
import Foundation

/// Why the database file cannot be used at start-up: a file that is not an SQLite database, or
/// is another program's; a corrupt or truncated file; a file or folder that cannot be written;
/// a full disk while migrating; a schema newer than this binary; its `-wal` or `-shm` without it,
/// or beside it empty (another process may be using them, T13-F12; or a server whose file was
/// emptied under it kept them, tester21b-F13); a device, FIFO or socket (T13B-F7); a `mocks`
/// row that is not a mock `update` accepts (``CatbirdDomain/UnloadableMockRow``, tester21b-F7).
/// `catbird` exits 3 on it: restarting will not help until someone fixes the file (README.md#storage-faults).
public struct DatabaseUnusable: Error, CustomStringConvertible, Sendable {
    /// The database as given (`--db`); for `:memory:`, also its stand-in file and `$TMPDIR` (``DatabaseLocation/shown``).
    public let path: String
    /// What is wrong and what to do, in a sentence.
    public let reason: String
    /// The fault is the disk's, not the file's: a full disk, which freeing space cures with no
    /// change to the file, so a restart may succeed (`catbird` exits 1, not 3; tester finding
    /// tester42b-F13: exit 3 told supervisors never to restart, and a server started while the
    /// disk was full stayed down after it was cleaned).
    public var transient = false

    init(path: String, reason: String, transient: Bool = false) {
        self.path = path
        self.reason = reason
        self.transient = transient
    }

    /// `database <path>: <reason>`.
    public var description: String { "database \(path): \(reason)" }

    /// The start-up failure `error` as an unusable file, or nil when it is not about the file
    /// (another server holds the lock, a port, the mocks directory).
    static func from(_ error: any Error, path: String) -> DatabaseUnusable? {
        switch error {
        case let error as DatabaseUnusable:
            return error
        case let error as DatabaseFileLock.LockError:
            switch error {
            case .inUse: return nil
            case let .cannotOpen(_, reason):
                return DatabaseUnusable(path: path, reason: "cannot open the file for reading and writing: \(reason)")
            case let .companionsWithoutDatabase(_, files, emptyFile, holder):
                return DatabaseUnusable(
                    path: path, reason: DatabaseFileLock.LockError.companionsReason(files, emptyFile: emptyFile, holder: holder))
            case let .notARegularFile(database, kind):
                return DatabaseUnusable(path: path, reason: DatabaseFileLock.LockError.notARegularFileReason(database, kind: kind))
            case let .walUnderAnotherName(database, other, walSize):
                return DatabaseUnusable(path: path, reason: DatabaseFileLock.walUnderAnotherNameReason(database, other: other, walSize: walSize))
            }
        case let error as MigrationError:
            if case let .failed(_, _, sqlite) = error, let reason = sqlite.environmentalReason {
                return DatabaseUnusable(path: path, reason: "\(reason); \(error)", transient: sqlite.isDiskFull)
            }
            return DatabaseUnusable(path: path, reason: error.description)
        case let error as SQLiteError:
            return DatabaseUnusable(path: path, reason: explanation(of: error), transient: error.isDiskFull)
        case let error as UnloadableMockRow:
            return DatabaseUnusable(path: path, reason: error.description)
        default:
            return nil
        }
    }

    /// What an SQLite failure at start-up means for the file, with what to do.
    private static func explanation(of error: SQLiteError) -> String {
        switch error.code {
        case SQLITE_NOTADB:
            return "the file is not an SQLite database (its first page is not SQLite's: another kind of file, "
                + "or corrupt); choose another --db, or move it away to start afresh (\(error.message))"
        case SQLITE_CORRUPT:
            return "the file is corrupt or truncated (\(error.message)); restore it from a copy, or move it away "
                + "(with its -wal and -shm files) to start afresh"
        default:
            return "\(error.environmentalReason ?? "SQLite failed") (\(error))"
        }
    }

    /// Looks at the file before anything writes to it (opening it for writing switches it to
    /// WAL, which rewrites its header), once a hot `-journal` beside it is rolled back
    /// (``rollBackHotJournal(_:log:)``): through a read-only connection, checks that it is an
    /// SQLite database that is empty or ours, and not corrupt (``quickCheck(_:path:)``). An
    /// empty or new file passes at once. A file of ``announcedCheckSize`` or more is announced
    /// first (tester finding tester20b-F5: a 1.6 GB file read from disk after a reboot took
    /// 16-40 s, with nothing logged and the port closed).
    /// - Throws: ``DatabaseUnusable``, `MigrationError.foreignDatabase` or `.otherProgramsDatabase`, or `SQLiteError`.
    static func inspect(_ file: String, path: String, log: Logger) throws {
        try rollBackHotJournal(file, log: log)
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        guard size > 0 else { return }
        let db = try Database(path: file, mode: .readOnly)
        defer { db.close() }
        try Migrator.checkOwnership(db, migrations: Schema.migrations)
        if size >= announcedCheckSize {
            log.announce(
                "checking \(path) (\(size / 1_000_000) MB) with PRAGMA quick_check before listening: about 0.3 s per 200 MB "
                    + "when the file is in the page cache, longer when it is read from disk")
        }
        try quickCheck(db, path: path)
    }

    /// Checks, once migrated, that the file has every table, view, index, trigger and column
    /// its schema version has (``Schema/missingObjects(in:)``): one changed outside Catbird
    /// would otherwise fail at the first statement that needs what is gone, with exit 1 and a
    /// raw SQLite error (tester finding tester29b-F4: `drop table journal_deletions`).
    /// - Throws: ``DatabaseUnusable`` naming at most five of what is missing; `SQLiteError`.
    static func checkSchema(_ db: Database, path: String) throws {
        let missing = try Schema.missingObjects(in: db)
        guard !missing.isEmpty else { return }
        let version = Schema.migrations.map(\.version).max() ?? 0
        let named = missing.prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", and \(missing.count - 5) more" : "")
        throw DatabaseUnusable(
            path: path,
            reason: "its schema lacks \(named), which a Catbird database at schema version \(version) has: it was changed "
                + "outside Catbird; restore it from a copy, or move it away (with its -wal and -shm files) to start afresh")
    }

    /// Rolls back a hot rollback journal beside `file` (`<file>-journal`, its header written
    /// and the file changed: a process killed in the middle of a write in rollback mode, such
    /// as the very first start's before the file is switched to WAL; tester finding
    /// tester29b-F5: every later start was refused with "cannot be written (read-only or
    /// permission denied)", since the read-only connection of ``inspect(_:path:log:)`` cannot
    /// roll it back). As any program opening the file for writing does, on the first read of a
    /// read-write connection; under the file's lock, so no other process is using it. Only a
    /// file that starts with SQLite's header: another kind of file is left exactly as it was.
    /// - Throws: `SQLiteError` when the file cannot be opened or read.
    static func rollBackHotJournal(_ file: String, log: Logger) throws {
        let journal = file + "-journal"
        guard let size = try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int, size > 0,
              let handle = FileHandle(forReadingAtPath: file)
        else { return }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard header == Data("SQLite format 3\0".utf8) else { return }
        let db = try Database(path: file, mode: .readWrite)
        defer { db.close() }
        _ = try db.query("SELECT count(*) FROM sqlite_schema")
        let left = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0
        if left == 0 {
            // A warning: the file changed before it was checked (another program's too, which that
            // program's next open would have done the same; tester finding tester29c-F4).
            log.warning("database \(file): rolled back the unfinished write its -journal held (a process stopped in the middle of it)")
        }
    }

    /// The file size from which the start-up check is announced: 200 MB (about 0.3 s of it).
    static let announcedCheckSize = 200_000_000

    /// `PRAGMA quick_check` (<https://www.sqlite.org/pragma.html#pragma_quick_check>): reads
    /// every page, checks the b-trees' structure (not index contents); about 0.3 s per 200 MB.
    /// - Throws: ``DatabaseUnusable`` naming the first problem found, or the `SQLiteError` of a
    ///   page that cannot be read at all.
    static func quickCheck(_ db: Database, path: String) throws {
        let problems = try db.query("PRAGMA quick_check(5)").compactMap { $0[0].stringValue }
        guard problems != ["ok"] else { return }
        throw DatabaseUnusable(
            path: path,
            reason: "the file is corrupt or truncated (PRAGMA quick_check: \(problems.joined(separator: "; "))); "
                + "restore it from a copy, or move it away (with its -wal and -shm files) to start afresh")
    }
}
