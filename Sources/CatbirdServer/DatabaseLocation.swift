import Foundation

/// Where the database file lives. `:memory:` becomes a private file in the temporary directory,
/// deleted when the server stops: the server needs a file so that its read-only connections see
/// the writer's data (an SQLite in-memory database is private to one connection). Such files
/// that killed servers left behind are deleted at the next `:memory:` start (``removeLeftovers(in:)``).
struct DatabaseLocation: Sendable {
    /// The path SQLite opens.
    let path: String
    /// True when `path` is a temporary stand-in for `:memory:`.
    let isTemporary: Bool

    /// How start-up errors name the database: the path as given, or for `:memory:` also the
    /// stand-in file and `$TMPDIR`, the folder it is made in (tester finding tester28b-F3: with
    /// `TMPDIR` naming a missing folder, `database :memory:: … (the folder does not exist)` named
    /// neither).
    var shown: String {
        guard isTemporary else { return path }
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].map { "TMPDIR=\($0)" } ?? "TMPDIR unset"
        return ":memory: (its file \(path), in the temporary folder: \(folder))"
    }

    init(_ requested: String) {
        if requested == ":memory:" {
            Self.removeLeftovers()
            path = FileManager.default.temporaryDirectory
                .appendingPathComponent("\(Self.temporaryPrefix)\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).sqlite").path
            isTemporary = true
        } else {
            path = requested
            isTemporary = false
        }
    }

    /// Deletes the temporary file and its WAL and shared-memory files.
    func removeIfTemporary() {
        guard isTemporary else { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
