import CSQLite

/// Checkpoints whose outcome is seen (<https://www.sqlite.org/wal.html#ckpt>): SQLite's
/// automatic checkpoint ignores a failure, so a database file that can no longer be written
/// (made immutable, `chattr +i`, under a running server) went unnoticed while its `-wal` grew
/// past ``Database/walSizeLimit`` (tester finding tester29b-F3).
extension Database {
    /// How many WAL pages (frames) a commit leaves before ``checkpointAutomatically(report:)``
    /// checkpoints: 1000, SQLite's own default (<https://www.sqlite.org/c3ref/wal_autocheckpoint.html>).
    public static let checkpointPages: Int32 = 1000

    /// Replaces SQLite's automatic checkpoint with the same one whose result is reported: after
    /// a commit that leaves at least ``checkpointPages`` pages in the WAL, a passive checkpoint
    /// (`sqlite3_wal_checkpoint_v2`, `SQLITE_CHECKPOINT_PASSIVE`: waits for no reader nor
    /// writer, as the automatic one) runs on this connection, in the commit, and `report` is
    /// called with nil when it succeeded or with its error when it failed. One that found
    /// another checkpoint running (`SQLITE_BUSY`) is not reported: it says nothing of the file.
    /// The commit itself succeeds either way (the hook returns `SQLITE_OK`).
    /// <https://www.sqlite.org/c3ref/wal_hook.html>: registering a WAL hook turns the
    /// automatic checkpoint off, so this is the only one. `report` runs on the thread that
    /// commits, within the commit: it must not use this connection.
    public func checkpointAutomatically(report: @escaping (SQLiteError?) -> Void) {
        let handle = connection.open("Database")
        let box = CheckpointReport(report)
        walHook = box
        sqlite3_wal_hook(
            handle,
            { context, db, name, pages in
                guard let context, let db, pages >= Database.checkpointPages else { return SQLITE_OK }
                // The box is kept by the Database, which unregisters the hook before it closes.
                Unmanaged<CheckpointReport>.fromOpaque(context)._withUnsafeGuaranteedRef { box in
                    let status = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                    switch status {
                    case SQLITE_OK: box.report(nil)
                    case SQLITE_BUSY: break
                    default: box.report(SQLiteError.current(db, code: status, sql: "checkpoint (passive, automatic)"))
                    }
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(box).toOpaque())
    }

    /// Copies the WAL's frames into the database file as far as no reader needs them
    /// (`sqlite3_wal_checkpoint_v2`, `SQLITE_CHECKPOINT_PASSIVE`). Another checkpoint running
    /// (`SQLITE_BUSY`) is not a failure: nothing was tried.
    /// - Returns: whether a checkpoint ran (false: another one was running).
    /// - Throws: `SQLiteError` when the checkpoint failed, e.g. `SQLITE_IOERR_WRITE` for a file
    ///   that cannot be written.
    @discardableResult
    public func checkpointPassively() throws(SQLiteError) -> Bool {
        let handle = connection.open("Database")
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        switch status {
        case SQLITE_OK: return true
        case SQLITE_BUSY: return false
        default: throw SQLiteError.current(handle, code: status, sql: "checkpoint (passive)")
        }
    }
}

/// Holds ``Database/checkpointAutomatically(report:)``'s closure for SQLite's C callback.
final class CheckpointReport {
    let report: (SQLiteError?) -> Void
    init(_ report: @escaping (SQLiteError?) -> Void) { self.report = report }
}
