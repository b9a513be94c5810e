import CatbirdTestSupport
import Foundation
import XCTest

/// A HAR export's pages are read and encoded on the tenant's slow lane, not on the worker that
/// sends the answer (docs/answering-later.md): the connection waits suspended while each page
/// is made, so the workers keep serving every tenant's mocks.
final class HARExportOffWorkerTests: StorageTestCase {
    /// Regression (tester finding tester34a-F2): only the first page was made on the slow lane;
    /// every later one was read from SQLite and encoded inside libmicrohttpd's content reader, on
    /// the worker (a 146 MB export: 1.58 s of the worker's CPU, 0.02 s of the slow lane's), and
    /// other tenants' hits on that worker waited behind it (p99 0.8 ms to 7-14 ms). Here, one
    /// worker thread and an export of about 24 MB (2,000 requests with 12 KB bodies, a dozen
    /// pages): the slow lane's threads take more CPU time than the worker (before: the worker
    /// took nearly all of it), and the document is whole.
    func testTheExportsPagesAreMadeOnTheSlowLane() throws {
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", databasePath("har.sqlite"), "--log-level", "error", "--threads", "1"],
            in: directory)
        defer { _ = try? server.terminate() }
        let client = try server.client()
        let tenant = [("X-Catbird-Parallel-Id", "exporter")]
        let body = Array(String(repeating: "abcdefghij", count: 1_200).utf8)
        for index in 0..<2_000 {
            XCTAssertEqual(try client.request("POST", "/upload/\(index)", headers: tenant, body: body).status, 404)
        }
        let pid = server.process.processIdentifier
        let before = try cpuTicks(of: pid)
        let export = try client.request("GET", "/catbird/api/requests.har", headers: tenant)
        let after = try cpuTicks(of: pid)
        XCTAssertEqual(export.status, 200)
        XCTAssertGreaterThan(export.body.count, 20_000_000)
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(export.body)) as? [String: Any])["log"] as? [String: Any]
        XCTAssertEqual((log?["entries"] as? [Any])?.count, 2_000, "the whole document")

        let worker = (after["catbird-worker"] ?? 0) - (before["catbird-worker"] ?? 0)
        let slow = (after["catbird-slow"] ?? 0) - (before["catbird-slow"] ?? 0)
        XCTAssertGreaterThan(slow, worker, "CPU ticks during the export: slow lane \(slow), worker \(worker)")
    }

    /// CPU time (user and system, in clock ticks) of the threads of `pid`, summed by kernel name
    /// without its trailing `-N` (`catbird-slow-2` counts as `catbird-slow`).
    private func cpuTicks(of pid: Int32) throws -> [String: Int] {
        let tasks = "/proc/\(pid)/task"
        var ticks: [String: Int] = [:]
        for tid in try FileManager.default.contentsOfDirectory(atPath: tasks) {
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(tid)/stat", encoding: .utf8),
                  let name = stat.split(separator: "(", maxSplits: 1).last?.split(separator: ")").first
            else { continue }
            // Fields after the name's `) `: the state is field 3, utime field 14, stime field 15.
            let fields = try XCTUnwrap(stat.components(separatedBy: ") ").last).split(separator: " ")
            let kind = name.split(separator: "-").prefix(2).joined(separator: "-")
            ticks[kind, default: 0] += (Int(fields[14 - 3]) ?? 0) + (Int(fields[15 - 3]) ?? 0)
        }
        return ticks
    }
}
