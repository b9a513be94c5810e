import Foundation
import XCTest

/// Another process holding an SQLite database's write lock, as a `sqlite3` shell or a backup
/// script does: python3's `sqlite3` in `BEGIN IMMEDIATE` for a while, then `ROLLBACK`.
public enum SQLiteWriteLock {
    /// Starts the holder on `databasePath` for `seconds` and returns once it holds the lock.
    /// - Throws: `XCTSkip` when python3 cannot be run or its `sqlite3` does not take the lock
    ///   within 10 s.
    public static func hold(_ databasePath: String, seconds: Int) throws -> Process {
        let held = databasePath + ".held"
        let script = """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0)
            db.execute("BEGIN IMMEDIATE")
            open(sys.argv[2], "w").close()
            time.sleep(\(seconds))
            db.execute("ROLLBACK")
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, databasePath, held]
        do { try python.run() } catch { throw XCTSkip("python3 cannot be run here: \(error)") }
        defer { try? FileManager.default.removeItem(atPath: held) }
        let lockDeadline = Date(timeIntervalSinceNow: 10)
        while !FileManager.default.fileExists(atPath: held), python.isRunning, Date() < lockDeadline { usleep(20_000) }
        guard FileManager.default.fileExists(atPath: held) else {
            python.terminate()
            throw XCTSkip("python3's sqlite3 did not take the lock")
        }
        return python
    }
}
