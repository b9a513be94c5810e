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
    /// called with nil when it succeeded or with its error when it failed, and with the WAL
    /// frames it could not copy (0 when it copied them all; more when a reader holds a snapshot
    /// that needs them, so the WAL cannot start over and grows with every commit). One that
    /// found another checkpoint running (`SQLITE_BUSY`) is not reported: it says nothing of the file.
    /// The commit itself succeeds either way (the hook returns `SQLITE_OK`).
    /// <https://www.sqlite.org/c3ref/wal_hook.html>: registering a WAL hook turns the
    /// automatic checkpoint off, so this is the only one. `report` runs on the thread that
    /// commits, within the commit: it must not use this connection.
    public func checkpointAutomatically(report: @escaping (_ error: SQLiteError?, _ framesLeft: Int) -> Void) {
        let handle = connection.open("Database")
        let box = CheckpointReport(report)
        walHook = box
        sqlite3_wal_hook(
            handle,
            { context, db, name, pages in
                guard let context, let db, pages >= Database.checkpointPages else { return SQLITE_OK }
                // The box is kept by the Database, which unregisters the hook before it closes.
                Unmanaged<CheckpointReport>.fromOpaque(context)._withUnsafeGuaranteedRef { box in
                    var frames: Int32 = 0
                    var copied: Int32 = 0
                    switch Database.passiveCheckpoint(db, name, sql: "checkpoint (passive, automatic)", frames: &frames, copied: &copied) {
                    case .done: box.report(nil, Int(max(0, frames - copied)))
                    case .busy: break
                    case let .failed(error): box.report(error, 0)
                    }
                }
                return SQLITE_OK
            },
            Unmanaged.passUnretained(box).toOpaque())
    }

    /// What a passive checkpoint did.
    public enum CheckpointOutcome: Sendable, Equatable {
        /// It ran: the WAL's frames no reader needs are in the file.
        case done
        /// Another checkpoint was running (`SQLITE_BUSY`): nothing was tried, nothing is known.
        case busy
        /// It failed, e.g. `SQLITE_IOERR_WRITE` for a file that cannot be written.
        case failed(SQLiteError)
    }

    /// Copies the WAL's frames into the database file as far as no reader needs them
    /// (`sqlite3_wal_checkpoint_v2`, `SQLITE_CHECKPOINT_PASSIVE`: waits for no reader nor writer).
    public func checkpointPassively() -> CheckpointOutcome {
        Self.passiveCheckpoint(connection.open("Database"), nil, sql: "checkpoint (passive)")
    }

    /// The passive checkpoint of ``checkpointPassively()`` and of the automatic checkpoint's hook
    /// (which has only the handle), on the database `name` (nil: every attached one).
    /// `frames` and `copied`: the WAL's frames and those now in the file (`pnLog`, `pnCkpt`).
    static func passiveCheckpoint(
        _ handle: OpaquePointer, _ name: UnsafePointer<CChar>?, sql: String, frames: UnsafeMutablePointer<Int32>? = nil,
        copied: UnsafeMutablePointer<Int32>? = nil
    ) -> CheckpointOutcome {
        let status = sqlite3_wal_checkpoint_v2(handle, name, SQLITE_CHECKPOINT_PASSIVE, frames, copied)
        switch status {
        case SQLITE_OK: return .done
        case SQLITE_BUSY: return .busy
        default: return .failed(SQLiteError.current(handle, code: status, sql: sql))
        }
    }
}

/// Holds ``Database/checkpointAutomatically(report:)``'s closure for SQLite's C callback.
final class CheckpointReport {
    let report: (SQLiteError?, Int) -> Void
    init(_ report: @escaping (SQLiteError?, Int) -> Void) { self.report = report }
}
