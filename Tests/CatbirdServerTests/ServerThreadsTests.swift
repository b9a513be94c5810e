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

    /// The nice value (`/proc/<pid>/task/<tid>/stat`, field 19) of each thread of `pid`, by
    /// its kernel name.
    private func niceValues(of pid: Int32) throws -> [(name: String, nice: Int)] {
        let tasks = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).map { tid in
            let stat = try String(contentsOfFile: "\(tasks)/\(tid)/stat", encoding: .utf8)
            let name = try XCTUnwrap(stat.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first)
            // Fields after the name's `) `: the state is field 3, the nice value field 19.
            let fields = try XCTUnwrap(stat.components(separatedBy: ") ").last).split(separator: " ")
            return (String(name), try XCTUnwrap(Int(fields[19 - 3])))
        }
    }

    /// Regression (tester finding tester31b-F2): the slow lane and the SQL threads ran at nice
    /// 0, as the workers do, so one tenant's counts, finds, listings and SQL (within its
    /// admission) took another tenant's mock hits from p99 0.40 ms to 9.4 ms on two cores. The
    /// control reads now run at nice 10 as the matching lanes do; what takes the write
    /// connection (the quick lane's updates, the deleting lane's clears and drops, the journal
    /// writer) and the workers stay at 0.
    func testControlReadsYieldTheCoresToTheWorkersAndWritesDoNot() throws {
        let server = try launch()
        defer { _ = try? server.terminate() }
        let threads = try niceValues(of: server.process.processIdentifier)
        func nice(_ prefix: String) -> Set<Int> { Set(threads.filter { $0.name.hasPrefix(prefix) }.map(\.nice)) }
        for reader in ["catbird-slow-", "catbird-sql-", "catbird-match-", "catbird-body-"] {
            XCTAssertEqual(nice(reader), [10], "\(reader): \(threads)")
        }
        for writer in ["catbird-worker", "catbird-quick-", "catbird-drop-", "catbird-bulk-", "catbird-journal"] {
            XCTAssertEqual(nice(writer), [0], "\(writer): \(threads)")
        }
    }

    func testEachThreadIsNamedAfterItsJobForTheKernel() throws {
        let server = try launch()
        defer { _ = try? server.terminate() }
        let names = try threadNames(of: server.process.processIdentifier)
        XCTAssertEqual(names.filter { $0 == "catbird-worker" }.count, 2, "one per --threads: \(names)")
        let expected = [
            "catbird-journal", "catbird-accept", "catbird-quick-0", "catbird-quick-1", "catbird-slow-0", "catbird-slow-3",
            "catbird-bulk-0", "catbird-drop-0", "catbird-drop-1", "catbird-health", "catbird-metrics", "catbird-sql-0",
            "catbird-match-0", "catbird-body-0", "catbird-prune",
        ]
        for name in expected { XCTAssertTrue(names.contains(name), "\(name) among \(names)") }
        XCTAssertTrue(names.allSatisfy { $0.utf8.count <= 15 }, "\(names)")
    }
}
