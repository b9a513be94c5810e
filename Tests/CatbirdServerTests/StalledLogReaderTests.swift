import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A standard error nobody reads (README.md#configuration: the server never waits for its log).
/// Regression (tester finding T19A-F6), the finding's shape: `catbird --log-level info 2>&1 |
/// sleep 120`, 400 unmatched GETs on one keep-alive connection: the 64 KiB pipe filled after
/// about 400 lines (one per request), the next write blocked the worker, and every request,
/// health included, hung, and SIGTERM did not stop the server. Here 2,000 requests (each
/// logging about 200 bytes: six times the pipe) all answer, health and the metrics answer,
/// the dropped lines are counted, and SIGTERM stops it; once the pipe is read, the next
/// line says how many were dropped.
final class StalledLogReaderTests: XCTestCase {
    func testAStderrPipeNobodyReadsHoldsUpNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-stalled-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = Pipe()  // its reading end is read only at the end
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", ":memory:", "--log-level", "info"], in: directory, stderrPipe: pipe)
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: 5)
        for index in 0..<2000 {
            let answer = try client.request("GET", "/unmatched/\(index)/" + String(repeating: "x", count: 40))
            XCTAssertEqual(answer.status, 404, "request \(index)")
        }
        let health = try RawHTTPClient(port: server.port, timeoutSeconds: 5).request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 200, health.text)
        let metrics = try client.request("GET", "/catbird/metrics").text
        let dropped = metrics.split(separator: "\n").first { $0.hasPrefix("catbird_log_lines_dropped_total ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        XCTAssertGreaterThan(dropped, 500, "the lines the full pipe could not take are counted")

        // Room again: the next line written says how many were dropped.
        let drained = pipe.fileHandleForReading.availableData
        XCTAssertGreaterThan(drained.count, 0, "the lines written before the pipe filled")
        _ = try client.request("GET", "/after")
        let start = ContinuousClock.now
        let result = try server.terminate()
        XCTAssertEqual(result.status, 0, "a clean exit")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(10), "SIGTERM stops the server")
        let rest = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(rest.contains("lines dropped: standard error was not read fast enough"), String(rest.prefix(600)))
    }
}
