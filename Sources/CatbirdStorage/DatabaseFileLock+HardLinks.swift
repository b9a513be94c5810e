#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database file's other names (hard links): SQLite names its `-wal` after the path it
/// opened, so a `-wal` that a killed server left beside one name is not read by a start
/// through another, whose changes a later start through the first name then loses to its
/// replay (tester finding tester42b-F4: two acknowledged mocks missing, a third, acknowledged
/// and stopped cleanly, rolled back).
extension DatabaseFileLock {
    /// How many names the locked file has (`st_nlink`; 1 for most, 0 when it cannot be read).
    public var linkCount: Int {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int(status.st_nlink) : 0
    }

    /// Another name of the file open at `descriptor` in the folder of `path`, with a `-wal` of
    /// changes (more than 0 bytes) beside it, and that `-wal`'s size; nil when the file has one
    /// name, or none of its others in that folder has one. A name in another folder is not looked for.
    static func otherNameWithWAL(of descriptor: Int32, path: String) -> (name: String, walSize: Int64)? {
        var own = stat()
        guard fstat(descriptor, &own) == 0, own.st_nlink > 1 else { return nil }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let ownName = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ownName, name != ".", name != ".." else { continue }
            let other = (folder == "/" ? "" : folder) + "/" + name
            var status = stat()
            guard lstat(other, &status) == 0, status.st_dev == own.st_dev, status.st_ino == own.st_ino,
                  let walSize = size(of: other + "-wal"), walSize > 0 else { continue }
            return (other, walSize)
        }
        return nil
    }

    /// Why a start through `database` is refused while its other name `other` has a `-wal` of
    /// `walSize` bytes beside it, and what to do.
    public static func walUnderAnotherNameReason(_ database: String, other: String, walSize: Int64) -> String {
        "\(database) is another name (a hard link) of \(other), whose \(other)-wal (\(walSize) bytes) holds changes not yet in "
            + "the file, left by a server that did not stop cleanly (killed or crashed): SQLite reads a -wal only beside the name "
            + "it opens, so a start on this name would not see them, and a later start on \(other) would replay them over this "
            + "one's changes; nothing was changed. Start once on \(other) (it replays them, and a clean stop removes the -wal), "
            + "then use either name"
    }
}
