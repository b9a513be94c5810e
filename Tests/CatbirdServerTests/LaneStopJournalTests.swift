import CatbirdTestSupport
import Foundation
import Synchronization
import XCTest

/// Requests waiting on the matching lane when the server stops (README.md#storage-faults):
/// their clients get the stopping server's 503, and the journal has that 503 for each.
final class LaneStopJournalTests: XCTestCase {
    /// Regression (tester finding tester55a-F2, its repro: 30 concurrent requests on one
    /// catastrophic-regexp mock, SIGTERM after 0.15 s, a restart on the same file): 24 clients
    /// got `503 the server is stopping` and the journal had no row for any of them. Now every
    /// request a client got an answer to is journaled with the status it got.
    func testRequestsWaitingOnTheMatchingLaneAtAStopAreJournaledAsTheir503() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-lane-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("lane.sqlite").path
        let port = try FreePort.next()
        let server = try LaunchedServer(["--port", "\(port)", "--db", database, "--log-level", "warning"], in: directory)
        let tenant = [("X-Catbird-Parallel-Id", "t1")]
        let added = try server.client().json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"regexp","value":"^/slow/((a|aa)+b|a+c)"}},"response":{"status":200}}"#,
            headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)

        let statuses = Mutex<[Int: Int]>([:])
        let group = DispatchGroup()
        for index in 0..<30 {
            DispatchQueue.global().async(group: group) {
                let status = (try? RawHTTPClient(port: port).request("GET", "/slow/\(String(repeating: "a", count: 26))c?i=\(index)", headers: tenant))?.status
                if let status { statuses.withLock { $0[index] = status } }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        let ended = try server.terminate()
        XCTAssertEqual(ended.status, 0, ended.stderr)
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        let answered = statuses.withLock { $0 }
        XCTAssertGreaterThan(answered.values.filter { $0 == 503 }.count, 0, "some waited on the lane at the stop: \(answered)")

        let again = try LaunchedServer(["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"], in: directory)
        defer { _ = try? again.terminate() }
        let listing = try again.client().request("GET", "/catbird/api/requests?bodies=false&limit=1000", headers: tenant)
        var journaled: [Int: Int] = [:]
        for entry in listing.object["requests"] as? [[String: Any]] ?? [] {
            guard let url = entry["url"] as? String, let index = url.split(separator: "=").last.flatMap({ Int($0) }),
                let status = (entry["response"] as? [String: Any])?["status"] as? Int
            else { continue }
            journaled[index] = status
        }
        for (index, status) in answered {
            XCTAssertEqual(journaled[index], status, "request \(index): the client got \(status); journal: \(journaled)")
        }
    }
}
