import CSQLite
import CatbirdStorage

/// What a journal clear or tenant drop answers when the disk holding the database is full
/// (`SQLITE_FULL`): even a deletion writes its pages to the `-wal` first, and SQLite's
/// checkpoint cannot make room there while the file cannot grow, so nothing is deleted or
/// hidden until space is freed (README.md#storage-faults). The 503 says so, and how to get out
/// (tester finding tester34b-F1: the README promised the clear would answer at once and hide
/// the rows, and the bare `the disk holding the database is full` did not say that freeing
/// space was the way out).
enum FullDiskDeletion {
    /// `body`, with an `SQLITE_FULL` it throws turned into that 503.
    /// - Parameter what: the deletion, as the reason names it (`the journal clear`).
    /// - Throws: the 503 for a full disk; whatever else `body` throws.
    static func refusing<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.code == SQLITE_FULL {
            throw APIError(
                status: 503,
                reason: "the disk holding the database is full: \(what) needs room in the database's -wal to record itself, "
                    + "so nothing was deleted; free space on that disk and try again (README.md#storage-faults)")
        }
    }
}
