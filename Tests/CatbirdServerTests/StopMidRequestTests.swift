import CatbirdTestSupport
import Foundation
import XCTest

/// Requests still arriving when the server stops (README.md#configuration, SIGTERM).
final class StopMidRequestTests: XCTestCase {
    /// Regression (tester finding tester22b-F6, its bytes): 5 connections sent
    /// `POST /big` with `Content-Length: 100` and 2 bytes of it, then SIGTERM: the server
    /// stopped cleanly and left no journal entry nor log line for them, where a client hanging
    /// up at the same point is journaled (499). Now each is journaled, 503 with the problem
    /// "the server stopped before the request was complete; nothing was sent", and logged.
    func testRequestsStillArrivingAtTheStopAreJournaled() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-stopmid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("s.sqlite").path
        let first = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "info"], in: directory)
        var arriving: [RawHTTPClient] = []
        for _ in 0..<5 {
            let client = try RawHTTPClient(port: first.port)
            try client.send(raw: Array("POST /big HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: S\r\nContent-Length: 100\r\n\r\nab".utf8))
            arriving.append(client)
        }
        usleep(1_000_000)
        let (status, _, stderr) = try first.terminate()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(stderr.components(separatedBy: "POST /big → 503: the server stopped before the request was complete").count - 1, 5, stderr)
        withExtendedLifetime(arriving) {}

        let second = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        defer { _ = try? second.terminate() }
        let entries = try E2E.journal(try second.client(), tenant: "S")
        XCTAssertEqual(entries.count, 5, "\(entries)")
        for entry in entries {
            XCTAssertEqual(entry["method"] as? String, "POST")
            XCTAssertEqual(entry["url"] as? String, "/big")
            XCTAssertEqual(JSONNumber.int((entry["response"] as? [String: Any])?["status"]), 503)
            XCTAssertEqual(entry["problem"] as? String, "the server stopped before the request was complete; nothing was sent")
        }
    }
}
