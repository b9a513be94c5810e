#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `-wal` and `-shm` files SQLite keeps beside a database in WAL mode, as the server opened
/// them (device and inode numbers, taken right after opening the file), so that a server whose
/// file was deleted or replaced under it deals at its clean stop with its own, and only its own
/// (``settle(after:processID:)``).
///
/// SQLite removes both itself when its last connection closes, except when the file was moved:
/// it then skips the checkpoint (`SQLITE_READONLY_DBMOVED`) and leaves them at the path. Left
/// there, after a deletion they made the next start refuse (tester finding T13B-F5: the README's
/// "restart the server, which starts a new, empty file" failed with exit 3), and beside a
/// replacement SQLite (the next start, the `sqlite3` shell) replayed this WAL into the other file
/// and corrupted it for good (T13B-F1).
public struct DatabaseCompanions: Sendable {
    /// A file's device and inode numbers (`stat`).
    struct Identity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// The database file's path.
    public let databasePath: String
    /// The `-wal` and the `-shm` as they were when recorded; nil for one that was not there.
    let wal: Identity?
    let shm: Identity?

    /// Records the `-wal` and `-shm` beside `databasePath` now. Call once a connection has opened
    /// the file in WAL mode (SQLite has made both by then) and they are this server's alone (it
    /// holds the ``DatabaseFileLock``).
    public init(databasePath: String) {
        self.databasePath = databasePath
        wal = Self.identity(of: databasePath + "-wal")
        shm = Self.identity(of: databasePath + "-shm")
    }

    /// At a clean stop, after every connection on the file is closed and before the
    /// ``DatabaseFileLock`` is released: with the file at its path, does nothing; moved away
    /// (nothing at the path), see below. With the file
    /// deleted (no name left: nobody can open it again), removes the recorded `-wal` and `-shm`
    /// still at the path. With the path naming another file while this one still has a name
    /// elsewhere, moves the `-wal` aside to `<db>-wal.catbird-orphan-<pid>` and removes the
    /// `-shm` (only an index SQLite rebuilds from the WAL). A file at the path with another
    /// device or inode number is another's and left alone; so are both while another process has
    /// the `-shm` open (``openedElsewhere()``).
    /// - Returns: what was done or left, for a warning in the log; nil when there was nothing to do.
    ///
    /// A file moved away whose new name is known (`movedTo`, ``DatabaseFileLock/currentName()``)
    /// gets its changes back (tester finding T13B-F11: three acknowledged mocks were in the `-wal`
    /// left at the old path, the moved file held no table): the recorded `-wal` is moved beside
    /// it under its new name, the `-shm` removed, and the file opened once to copy the WAL into
    /// it (a `TRUNCATE` checkpoint). When that cannot be done (a `-wal` or `-shm` already beside
    /// the moved file, another process on the `-shm`, a failed rename or checkpoint) both are
    /// left at the path, as before, and the note says how to recover by hand.
    public func settle(
        after whereabouts: DatabaseFileLock.Whereabouts, movedTo: String? = nil, copiedAtClose: Bool = false, processID: Int32 = getpid()
    ) -> String? {
        let deleted: Bool
        switch whereabouts {
        case .atItsPath: return nil
        case .movedAway:
            if copiedAtClose, let note = copiedThroughDescriptors(movedTo: movedTo) { return note }
            switch recover(movedTo: movedTo) {
            case let .moved(note), let .left(note): return note
            case .nothing: return nil
            }
        case .deleted: deleted = true
        case let .replaced(gone):
            deleted = gone
            // Still named elsewhere: its changes go into it there, as for a file moved away;
            // moved aside only when that cannot be done.
            if !gone, case let .moved(note) = recover(movedTo: movedTo) { return note }
        }
        let walPath = databasePath + "-wal", shmPath = databasePath + "-shm"
        let ownWAL = wal != nil && Self.identity(of: walPath) == wal
        let ownSHM = shm != nil && Self.identity(of: shmPath) == shm
        guard ownWAL || ownSHM else { return nil }
        let own = (ownWAL ? [walPath] : []) + (ownSHM ? [shmPath] : [])
        if let holder = openedElsewhere() {
            return "left \(own.joined(separator: " and ")), this server's WAL of the file that was at \(databasePath) before it was "
                + "\(deleted ? "deleted" : "replaced"): process \(holder) has \(shmPath) open (it opened \(databasePath) since, and "
                + "reads this WAL as its file's). Stop it, then move them away before opening \(databasePath) again"
        }
        if deleted {
            let failed = own.filter { unlink($0) != 0 }
            return "removed \(own.filter { !failed.contains($0) }.joined(separator: " and ")), this server's WAL of the database file "
                + "deleted under it (which nobody can open any more), so that "
                + (whereabouts == .deleted
                    ? "the next start on \(databasePath) begins a new, empty file"
                    : "nothing replays it into the file now at \(databasePath)")
                + (failed.isEmpty ? "" : "; could not remove \(failed.joined(separator: " and ")): remove them before the next start")
        }
        guard ownWAL else {
            unlink(shmPath)
            return nil
        }
        guard let orphan = Self.moveAside(walPath, processID: processID) else {
            return "could not move \(walPath) aside (\(String(cString: strerror(errno)))): it holds this server's changes to the file "
                + "that was at \(databasePath) before it was replaced, not to the file now there; move it away before opening "
                + "\(databasePath), or SQLite replays it into that file and corrupts it"
        }
        if ownSHM { unlink(shmPath) }
        return "moved \(walPath) to \(orphan): it holds this server's changes not yet copied into the file it opened, which was "
            + "moved away from \(databasePath) and replaced by another file; left there, SQLite would replay it into the file now "
            + "at \(databasePath) and corrupt it. To recover those changes, put the moved file back at \(databasePath) and "
            + "rename \(orphan) to \(walPath) before opening it"
    }

    /// ``settle(after:movedTo:copiedAtClose:processID:)`` for a file moved away whose changes
    /// the close copied into it through the descriptors the server held
    /// (`SerialDatabase.closeCheckpointingThroughOpenFile()`): when its recorded `-wal` lost its
    /// name too (`mv` then `rm <db>-*`: tester finding tester55b-F10, every change since the
    /// last checkpoint was lost, and the `-shm` left at the path refused the next start), removes
    /// this server's `-shm` at the path and says where the changes went. Nil when the `-wal` is
    /// still at the path (``recover(movedTo:)`` deals with it).
    private func copiedThroughDescriptors(movedTo: String?) -> String? {
        let walPath = databasePath + "-wal", shmPath = databasePath + "-shm"
        guard wal != nil, Self.identity(of: walPath) != wal else { return nil }
        if shm != nil, Self.identity(of: shmPath) == shm, openedElsewhere() == nil { unlink(shmPath) }
        return "the database file was moved to \(movedTo ?? "another name") and its -wal deleted while the server ran: its changes "
            + "since the last checkpoint were written into it there at this stop, through the descriptors the server held"
    }

    /// What ``recover(movedTo:)`` did: moved the `-wal` away from the path (the note says
    /// whether it was also copied in), left it there (the note says how to recover by hand), or
    /// found no `-wal` of its own at the path.
    private enum Recovery {
        case moved(String)
        case left(String)
        case nothing
    }

    /// ``settle(after:movedTo:processID:)`` for a file that still has a name elsewhere: its
    /// recorded `-wal` moved beside it as `<movedTo>-wal` and copied into it.
    private func recover(movedTo: String?) -> Recovery {
        let walPath = databasePath + "-wal", shmPath = databasePath + "-shm"
        guard wal != nil, Self.identity(of: walPath) == wal else { return .nothing }
        let byHand = "put the file back at \(databasePath) (its changes since the last checkpoint are in \(walPath)), "
            + "or move \(walPath) beside it with its new name + \"-wal\" before opening it"
        guard let movedTo else { return .left("the database file was moved away and its new name is unknown: " + byHand) }
        if let holder = openedElsewhere() {
            return .left("left \(walPath): process \(holder) has \(shmPath) open; " + byHand)
        }
        let target = movedTo + "-wal"
        guard Self.identity(of: target) == nil, Self.identity(of: movedTo + "-shm") == nil else {
            return .left("the database file was moved to \(movedTo), beside which a -wal or -shm already is: " + byHand)
        }
        guard link(walPath, target) == 0 else {
            return .left("could not move \(walPath) beside \(movedTo) (\(String(cString: strerror(errno)))): " + byHand)
        }
        unlink(walPath)
        if shm != nil, Self.identity(of: shmPath) == shm { unlink(shmPath) }
        do throws(SQLiteError) {
            let database = try Database(path: movedTo)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            database.close()
        } catch {
            return .moved(
                "moved \(walPath) to \(target) beside the database file, which was moved to \(movedTo) while the server ran, "
                    + "but copying it into the file failed (\(error)): open \(movedTo) with its -wal beside it to keep those changes")
        }
        return .moved(
            "the database file was moved to \(movedTo) while the server ran: its changes since the last checkpoint "
                + "(in \(walPath)) were written into it there")
    }

    /// A process (other than this one) holding a lock on the `-shm` at the path, as every
    /// SQLite connection with the WAL index open does: a shared lock on byte 128, the "dead man
    /// switch", beside the lock bytes 120-127 it takes while reading or writing (SQLite's
    /// os_unix.c, `UNIX_SHM_BASE` and `UNIX_SHM_DMS`); nil when none does or there is no `-shm`.
    /// `F_GETLK` only asks: it takes no lock.
    func openedElsewhere() -> pid_t? {
        Self.holder(ofSHMBeside: databasePath)
    }

    /// ``openedElsewhere()`` for the `-shm` beside `databasePath`: a process holding a lock on
    /// it, whose connections are open on it; nil when none is or there is no `-shm`. Only true
    /// while this process has no connection of its own on it (`F_GETLK` does not report the
    /// asking process's own locks, and closing this descriptor would drop them).
    static func holder(ofSHMBeside databasePath: String) -> pid_t? {
        let descriptor = open(databasePath + "-shm", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }  // drops no lock of this process's: its connections are closed
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 120
        probe.l_len = 9
        guard fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return probe.l_pid
    }

    /// Moves `path` to `<path>.catbird-orphan-<pid>` (or `…-<pid>-2`, `-3` … when that exists:
    /// `link` never replaces a file), then unlinks `path`; the new path, or nil with `errno` set.
    private static func moveAside(_ path: String, processID: Int32) -> String? {
        for attempt in 1...100 {
            let orphan = "\(path).catbird-orphan-\(processID)" + (attempt == 1 ? "" : "-\(attempt)")
            if link(path, orphan) == 0 {
                unlink(path)
                return orphan
            }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    /// Whether the `-wal` recorded at start-up is no longer at its path (deleted, or replaced by
    /// another file): SQLite keeps writing to the one it has open, which a crash then loses
    /// (tester finding tester29b-F2). False when none was recorded.
    public func walGone() -> Bool {
        isGone(wal, "-wal")
    }

    /// Whether the `-shm` recorded at start-up is no longer at its path (deleted, or replaced):
    /// the server's connections go on sharing the one they have mapped, but another program that
    /// opens the file then makes a new one, does not see their locks, and its checkpoint can
    /// corrupt the file (tester finding tester54c-F1). False when none was recorded.
    public func shmGone() -> Bool {
        isGone(shm, "-shm")
    }

    /// Whether the companion `suffix` recorded as `recorded` is no longer at its path; false when none was recorded.
    private func isGone(_ recorded: Identity?, _ suffix: String) -> Bool {
        recorded != nil && Self.identity(of: databasePath + suffix) != recorded
    }

    /// `stat`'s device and inode of `path` (not following a final symbolic link); nil when nothing is there.
    static func identity(of path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}
