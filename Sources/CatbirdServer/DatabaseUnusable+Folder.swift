import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension DatabaseUnusable {
    /// Refuses a database file whose folder cannot be written while its `-wal` or `-shm` is
    /// missing: SQLite creates both beside the file when it opens it in WAL mode, so the file
    /// alone being writable is not enough. Without this, a writable file in a folder of mode
    /// 555 (or made immutable, or on a read-only mount) failed at its first read, blaming the
    /// file and quoting internal SQL (`the database file cannot be written (read-only or
    /// permission denied) … in: SELECT name FROM sqlite_schema …`, or `cannot be opened (SQLite
    /// error 14 …)`; tester finding T15A-F5). Uses `access(2)`, which sees modes, an immutable
    /// folder and a read-only mount alike, as root too.
    /// - Parameters:
    ///   - file: the path SQLite opens.
    ///   - path: the path as given (`--db`), for the message.
    /// - Throws: ``DatabaseUnusable`` naming the folder and the files SQLite must create there.
    static func checkFolder(of file: String, path: String) throws {
        try checkCompanions(of: file, path: path)
        let missing = ["-wal", "-shm"].filter { access(file + $0, F_OK) != 0 }
        guard !missing.isEmpty else { return }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        guard access(folder, W_OK | X_OK) != 0 else { return }
        let why = String(cString: strerror(errno))
        let name = URL(fileURLWithPath: file).lastPathComponent
        throw DatabaseUnusable(
            path: path,
            reason: "its folder \(folder) cannot be written (\(why)): SQLite creates \(name)-wal and \(name)-shm beside "
                + "the file when it opens it (WAL mode), and \(missing.map { name + $0 }.joined(separator: " and ")) "
                + "\(missing.count == 1 ? "is" : "are") not there; the server needs to read and write the file and its folder "
                + "(make the folder writable, or move the file to one that is)")
    }

    /// Checks that the file's `-wal` and `-shm`, where they exist, can be read and written by
    /// this process (tester finding tester42b-F8: ones left by a server of another user, killed,
    /// passed every start-up check; the server listened and health said ok, then every control
    /// change got 503 blaming "the database file", which was writable, and journal rows were
    /// dropped).
    /// - Throws: ``DatabaseUnusable`` naming the file, its owner and mode, and this process's user.
    static func checkCompanions(of file: String, path: String) throws {
        for suffix in ["-wal", "-shm"] {
            let companion = file + suffix
            var info = stat()
            guard stat(companion, &info) == 0, access(companion, R_OK | W_OK) != 0 else { continue }
            let why = String(cString: strerror(errno))
            let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
            let me = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
            let name = URL(fileURLWithPath: companion).lastPathComponent
            throw DatabaseUnusable(
                path: path,
                reason: "\(name) cannot be read and written by this process's user \(me) (\(why); owned by \(owner), mode "
                    + String(info.st_mode & 0o777, radix: 8) + "): SQLite writes every change there (WAL mode), so nothing could be "
                    + "stored; left by a server run as another user? give it to \(me) with chown (do not delete it: it may hold changes not yet in the file)")
        }
    }
}
