import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport

/// A test's hold on a `--durability strict` server's journal writer (README.md#durability):
/// another connection to the server's file takes SQLite's write lock (`BEGIN IMMEDIATE`), so the
/// writer's next transaction waits for it (its busy timeout is 5 s) and every answer waiting for
/// its entry's commit stays withheld until ``release()``. The connection stays open to read the
/// journal afterwards; ``end()``, in a `defer`, rolls back a hold never released (a test that
/// failed first) and closes it.
final class JournalWriterHold {
    /// The holding connection; once released, it reads what the writer committed.
    let database: Database
    private var held = true

    /// Holds the writer of the server whose database file is at `path`.
    init(path: String) throws {
        database = try Database(path: path)
        try database.execute("BEGIN IMMEDIATE")
    }

    /// Holds `server`'s journal writer.
    convenience init(_ server: TestServer) throws {
        try self.init(path: server.databasePath)
    }

    /// Lets the writer go: the withheld answers leave once their entries are committed.
    func release() throws {
        try database.execute("COMMIT")
        held = false
    }

    /// Rolls back a hold still in place, and closes the connection.
    func end() {
        if held { try? database.execute("ROLLBACK") }
        database.close()
    }
}

extension TestServer {
    /// A `--durability strict` server with one worker thread, so that a test can tell that an
    /// answer waiting for its commit holds no worker (another request is still answered);
    /// `configure` may change more settings.
    static func strictWithOneWorker(_ configure: (inout CatbirdServer.Settings) -> Void = { _ in }) throws -> TestServer {
        try TestServer {
            $0.durability = .strict
            $0.threadCount = 1
            configure(&$0)
        }
    }
}
