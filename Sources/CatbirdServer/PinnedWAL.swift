import CatbirdSupport
import Synchronization

/// Watches for a `-wal` that checkpoints cannot start over (docs/operations.md#a-reader-left-open):
/// a reader holding an old snapshot (a `sqlite3` shell inside `BEGIN`, a long query, a backup
/// tool) keeps every frame written since, so the `-wal` grows with each commit, by about 20 MB
/// a second under one client's load, and stays that large until the next checkpoint after the
/// reader ends (tester finding tester39b-F3: 266 MB in 12 s, health ok, nothing logged). Told
/// the frames each automatic checkpoint could not copy (``CatbirdStorage/Database/checkpointAutomatically(report:)``),
/// it logs a warning once they pass ``warningFrames`` and another once a checkpoint copies
/// them all again. Health is not degraded: the server works on, and the reader is not its fault.
final class PinnedWAL: Sendable {
    /// Frames left behind that make the warning: 16,000, about 64 MiB of 4 KiB pages (16 times
    /// what a commit may leave before the automatic checkpoint runs).
    static let warningFrames = 16_000

    private let warned = Mutex(false)
    private let pageSize: Int
    private let log: Logger

    init(pageSize: Int, log: Logger) {
        self.pageSize = pageSize
        self.log = log
    }

    /// Called after each automatic checkpoint that ran, with the frames it could not copy.
    func checkpointed(framesLeft: Int) {
        let change: Bool? = warned.withLock { warned in
            if !warned, framesLeft >= Self.warningFrames { warned = true; return true }
            if warned, framesLeft == 0 { warned = false; return false }
            return nil
        }
        switch change {
        case true?:
            let megabytes = framesLeft * pageSize / (1 << 20)
            log.warning(
                "database: the -wal holds \(megabytes) MiB that no checkpoint can copy into the file: another process reads an old "
                    + "snapshot of it (a sqlite3 shell inside BEGIN, a long query, a backup tool), so the -wal grows with every write "
                    + "until that reader ends its transaction (docs/operations.md#a-reader-left-open)")
        case false?:
            // At the warning's level, so that whoever saw it (the shipped unit logs warnings) sees it end.
            log.warning("database: the -wal's frames are copied into the file again (the reader that held them ended)")
        case nil:
            break
        }
    }
}
