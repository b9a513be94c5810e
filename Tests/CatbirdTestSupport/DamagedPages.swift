import CatbirdStorage
import Foundation

/// Real corruption for storage-fault tests: garbage written straight into some of a database
/// file's pages behind SQLite's back, and the original bytes put back on request.
public struct DamagedPages {
    /// The file written to.
    public let path: String
    /// The pages overwritten (1-based, as SQLite numbers them), with their original first bytes.
    public let originals: [(page: Int, bytes: Data)]
    /// The file's page size in bytes.
    public let pageSize: Int

    /// The leaf pages of `table`'s b-tree in the file at `path`, in page order (SQLite's
    /// `dbstat` virtual table, <https://www.sqlite.org/dbstat.html>), read through a read-only
    /// connection that is closed again.
    /// - Throws: `SQLiteError`.
    public static func leafPages(of table: String, in path: String) throws -> [Int] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return try db.query("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", [.text(table)])
            .compactMap { $0[0].intValue }.map(Int.init)
    }

    /// Overwrites the first 64 bytes (the b-tree page header and cell pointers) of each of
    /// `pages` with 0xA5, so that any read of those pages, and `PRAGMA quick_check`, fails
    /// with `SQLITE_CORRUPT`.
    /// - Parameter pageSize: the file's page size in bytes (Catbird's files use SQLite's
    ///   default, 4096).
    /// - Throws: file errors.
    /// First copies every page in the `-wal` file into the database file and empties the WAL
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`), so that no newer copy of a page in the WAL hides the
    /// damage from readers; this needs every other connection idle, and throws if one is not.
    public init(_ pages: [Int], in path: String, pageSize: Int = 4096) throws {
        let db = try Database(path: path)
        let checkpoint = try db.query("PRAGMA wal_checkpoint(TRUNCATE)").first?[0].intValue
        db.close()
        guard checkpoint == 0 else { throw CheckpointBusy(path: path) }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var originals: [(page: Int, bytes: Data)] = []
        for page in pages {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            originals.append((page, try handle.read(upToCount: 64) ?? Data()))
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 64))
        }
        try handle.synchronize()
        self.path = path
        self.originals = originals
        self.pageSize = pageSize
    }

    /// Puts the original bytes back: the file is whole again.
    /// - Throws: file errors.
    public func restore() throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for (page, bytes) in originals {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize))
            try handle.write(contentsOf: bytes)
        }
        try handle.synchronize()
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` could not finish: another connection was reading or writing.
    public struct CheckpointBusy: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "could not checkpoint \(path): another connection is busy" }
    }
}
