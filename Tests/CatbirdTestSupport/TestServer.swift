import CatbirdServer
import CatbirdStorage
import Foundation

/// A real Catbird server on a free loopback port with a real SQLite file in its own temporary
/// directory. Stop it (or let it deinit) at the end of each test; the directory is removed
/// by ``removeFiles()``.
public final class TestServer: @unchecked Sendable {
    // @unchecked Sendable: `server` is replaced only by restart(), which tests call from the
    // test's own thread while no request is in flight.
    public let directory: URL
    public let databasePath: String
    public private(set) var settings: CatbirdServer.Settings
    private var server: CatbirdServer?

    /// Starts a server. `configure` may change settings (port and database are set already).
    public init(configure: (inout CatbirdServer.Settings) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("catbird.sqlite").path
        settings = CatbirdServer.Settings(port: 0, databasePath: databasePath, logLevel: .warning)
        configure(&settings)
        let server = try CatbirdServer(settings: settings)
        try server.start()
        self.server = server
    }

    /// The bound port.
    public var port: UInt16 { server?.port ?? 0 }

    /// Requests waiting for their answer without a worker thread (``CatbirdServer/waitingAnswers``).
    public var waitingAnswers: Int { server?.waitingAnswers ?? 0 }

    /// A client for this server (one keep-alive connection).
    public func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: port)
    }

    /// Stops the server (journal written, database closed) and starts a new one on the same
    /// file and a new free port.
    public func restart() throws {
        server?.stop()
        server = nil
        var next = settings
        next.port = 0
        let server = try CatbirdServer(settings: next)
        try server.start()
        self.server = server
    }

    /// Stops the server, hands `change` its database file (opened read-write, closed after it)
    /// to write what no request can (a large journal straight into the file, a pending
    /// deletion's row), and starts the server again on a new port.
    /// - Throws: what `change` throws (the server then stays stopped), `SQLiteError`, or a
    ///   start failure.
    public func restart(afterChangingTheFile change: (Database) throws -> Void) throws {
        stop()
        do {
            let database = try Database(path: databasePath)
            defer { database.close() }
            try change(database)
        }
        try restart()
    }

    public func stop() {
        server?.stop()
        server = nil
    }

    /// Starts ``stop()`` on a thread of its own, for a test that acts while the stop waits (a
    /// held write lock let go, a parked answer read); the semaphore is signalled once it ended.
    public func stopInBackground() -> DispatchSemaphore {
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            self.stop()
            stopped.signal()
        }
        return stopped
    }

    /// Stops the server and deletes its directory.
    public func removeFiles() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        removeFiles()
    }
}
