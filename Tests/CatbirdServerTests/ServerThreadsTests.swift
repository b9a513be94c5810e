import CatbirdTestSupport
import Foundation
import XCTest

/// The server's threads as the kernel shows them (docs/operations.md#threads), read from
/// `/proc/<pid>/task/*/` of a launched `catbird`: each named after its job (`comm`), so
/// `top -H`, `ps -L`, `perf sched` and the per-thread `schedstat` tell a worker from the
/// journal writer (every thread showed the process's name before).
final class ServerThreadsTests: StorageTestCase {
    private func launch() throws -> LaunchedServer {
        try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", databasePath("threads.sqlite"), "--log-level", "error", "--threads", "2"],
            in: directory)
    }

    /// The kernel's name of each thread of process `pid`.
    private func threadNames(of pid: Int32) throws -> [String] {
        let tasks = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).map { tid in
            try String(contentsOfFile: "\(tasks)/\(tid)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        }
    }

    func testEachThreadIsNamedAfterItsJobForTheKernel() throws {
        let server = try launch()
        defer { _ = try? server.terminate() }
        let names = try threadNames(of: server.process.processIdentifier)
        XCTAssertEqual(names.filter { $0 == "catbird-worker" }.count, 2, "one per --threads: \(names)")
        let expected = [
            "catbird-journal", "catbird-accept", "catbird-quick-0", "catbird-quick-1", "catbird-slow-0", "catbird-slow-3",
            "catbird-bulk-0", "catbird-health", "catbird-metrics", "catbird-sql-0", "catbird-match-0", "catbird-body-0",
            "catbird-prune",
        ]
        for name in expected { XCTAssertTrue(names.contains(name), "\(name) among \(names)") }
        XCTAssertTrue(names.allSatisfy { $0.utf8.count <= 15 }, "\(names)")
    }
}
