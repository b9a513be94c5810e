import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `--db :memory:` is a file in the temporary directory (README.md#configuration); the files a
/// killed server left there are deleted at the next `:memory:` start, and only those.
final class MemoryDatabaseLeftoversTests: XCTestCase {
    private var directory: URL!
    private var temporary: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-leftovers-\(UUID().uuidString)")
        temporary = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Regression (tester finding tester21b-F10, its repro): a `:memory:` server killed with
    /// SIGKILL left `catbird-memory-<pid>-<uuid>.sqlite`, `-wal` and `-shm` in `$TMPDIR` for
    /// good; a later start never removed them. Now the next `:memory:` start deletes them,
    /// and keeps a running server's file, a file whose pid is alive, a file another process
    /// holds the `flock` of, and files of other names.
    func testAKilledMemoryServersFilesGoAtTheNextMemoryStart() throws {
        let environment = ["TMPDIR": temporary.path]
        let killed = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory, environment: environment)
        let killedPID = killed.process.processIdentifier
        XCTAssertEqual(try memoryFiles().filter { $0.contains("-\(killedPID)-") }.count, 3, "file, -wal and -shm")
        _ = try killed.terminate(signal: SIGKILL)
        XCTAssertEqual(try memoryFiles().filter { $0.contains("-\(killedPID)-") }.count, 3, "left behind by kill -9")

        let dead = try deadPID()
        let alive = getpid()
        let orphanWAL = "catbird-memory-\(dead)-0F0F0F0F-0000-0000-0000-000000000001.sqlite-wal"
        let aliveFile = "catbird-memory-\(alive)-0F0F0F0F-0000-0000-0000-000000000002.sqlite"
        let heldFile = "catbird-memory-\(dead)-0F0F0F0F-0000-0000-0000-000000000003.sqlite"
        let other = "catbird-memory-notes.txt"
        for name in [orphanWAL, aliveFile, heldFile, other] {
            XCTAssertTrue(FileManager.default.createFile(atPath: temporary.appendingPathComponent(name).path, contents: Data("x".utf8)))
        }
        let held = open(temporary.appendingPathComponent(heldFile).path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(held, 0)
        defer { close(held) }
        XCTAssertEqual(flock(held, LOCK_EX | LOCK_NB), 0)

        let next = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", ":memory:"], in: directory, environment: environment)
        let nextPID = next.process.processIdentifier
        let files = try memoryFiles()
        XCTAssertEqual(files.filter { $0.contains("-\(killedPID)-") }, [], "the killed server's three files are gone")
        XCTAssertFalse(files.contains(orphanWAL), "a -wal whose database file is gone, of a dead pid")
        XCTAssertTrue(files.contains(aliveFile), "a live pid's file is kept")
        XCTAssertTrue(files.contains(heldFile), "a file whose flock is held is kept")
        XCTAssertTrue(files.contains(other), "another name is kept")
        XCTAssertEqual(files.filter { $0.contains("-\(nextPID)-") }.count, 3, "the new server's own files")
        XCTAssertEqual(try next.client().request("GET", "/catbird/api/health").status, 200)
        let (status, _, stderr) = try next.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(try memoryFiles().filter { $0.contains("-\(nextPID)-") }, [], "a clean stop removes its own")
    }

    /// The names in the test's temporary directory that start like a `:memory:` file.
    private func memoryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("catbird-memory-") }.sorted()
    }

    /// The pid of a process that has exited (and been waited for).
    private func deadPID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }
}
