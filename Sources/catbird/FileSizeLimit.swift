import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's file-size limit (`RLIMIT_FSIZE`: `ulimit -f`, systemd's `LimitFSIZE=`, `docker
/// run --ulimit fsize=`), which caps the database file and its `-wal` each (README.md#storage-faults).
enum FileSizeLimit {
    /// Room the limit must leave above the database file's size: 64 MiB. The `-wal` is checkpointed
    /// into the file only once it holds 1,000 pages (about 4 MiB), grows past that in a burst
    /// before a checkpoint can run, and is cut back to 16 MiB (``CatbirdStorage/Database/walSizeLimit``)
    /// only when one lets it start over; the file itself grows by what each checkpoint copies in.
    /// A limit below the file plus this may stop every write for good: a `-wal` at the limit before
    /// any checkpoint fails each round, the journal clear that would free room included (tester
    /// finding T19B-F13: `ulimit -f 3000` left it at 3,072,000 bytes, nothing ever checkpointed).
    static let headroom = 64 << 20

    /// The start-up warning when the soft limit is below the size of the file at `path` plus
    /// ``headroom``; nil when there is no such limit, it is high enough, or the database is in
    /// memory. The file's size is read as it is now (0 when it cannot be read).
    static func warning(forDatabaseAt path: String) -> String? {
        guard let (limit, size) = shortfall(forDatabaseAt: path) else { return nil }
        return "the file-size limit (RLIMIT_FSIZE: ulimit -f, LimitFSIZE=) is \(limit) bytes, below the database "
            + "file's \(size) bytes plus 64 MiB (\(size + headroom) bytes) for its -wal (checkpointed into the file only at about 4 MiB, "
            + "larger in a burst) and the file's growth: once either reaches the limit every write fails and the server stays "
            + "degraded, a journal clear included, until the limit is raised (prlimit --pid, or a restart with a higher one; "
            + "README.md#storage-faults)"
    }

    /// The soft limit and the file's size (0 when it cannot be read) when the limit is below the
    /// file at `path` plus ``headroom``; nil when there is no such limit, it is high enough, or
    /// the database is in memory.
    private static func shortfall(forDatabaseAt path: String) -> (limit: UInt, size: Int)? {
        guard path != ":memory:" else { return nil }
        var limit = rlimit()
        // rlim_t.max: RLIM_INFINITY, which Swift cannot import (-1 as an unsigned literal).
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
        guard limit.rlim_cur < UInt(size + headroom) else { return nil }
        return (UInt(limit.rlim_cur), size)
    }

    /// What a start that failed writing the database (`reason`: an I/O error, or a "full" disk)
    /// says of the file-size limit when it is below the file plus ``headroom``: the limit, not
    /// the disk or the file, is then the likely cause (tester finding tester46b-F4: a new database
    /// under `ulimit -f 40` was "the disk … is full" or "could not be read or written (disk I/O
    /// error)", exit 3, with 60 GB free; the limit never named). Nil otherwise.
    static func startFailure(forDatabaseAt path: String, reason: String) -> String? {
        guard reason.contains("disk I/O error") || reason.contains("is full"), let (limit, size) = shortfall(forDatabaseAt: path)
        else { return nil }
        return "the file-size limit (RLIMIT_FSIZE: ulimit -f, LimitFSIZE=) is \(limit) bytes, below the database file's "
            + "\(size) bytes plus 64 MiB, and is the likely cause, not the disk or the file: raise the limit and start again"
    }
}
