import CatbirdTestSupport
import Foundation
import XCTest

/// A stop (SIGTERM) while another process holds SQLite's write lock: it waits for the journal
/// round under way at most, one 5 s busy timeout (README.md#storage-faults, the busy row).
final class StopWhileBusyTests: XCTestCase {
    /// Regression (tester finding T18B-F5, its repro): a lock held by another connection, three
    /// journaled requests, SIGTERM 1.5 s later: the stop took 8.5–9 s (4 of 4 runs), because the
    /// round under way ended "kept queued to try again" (the writer learnt of the stop only once
    /// the server's other parts had stopped, the retention pass waiting behind that round among
    /// them) and a second 5 s round followed, close to Docker's 10 s before SIGKILL. Now that
    /// round is the last attempt. (Here SIGTERM comes 2.5 s after the requests, so that a
    /// retention pass surely waits: about 7.5 s before, 2.5 s now.)
    func testAStopWaitsForTheRoundUnderWayAtMost() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            Thread.sleep(forTimeInterval: 1.5)  // as in the repro: the lock taken while the server idles
            let hold = try JournalWriterHold(path: database)
            defer { hold.end() }
            Thread.sleep(forTimeInterval: 0.5)
            for index in 1...3 { XCTAssertEqual(try client.request("GET", "/x\(index)").status, 404) }
            // The journal round for them now waits in its 5 s busy timeout; within 2.5 s a retention
            // pass (every 2 s) has begun and waits for the same connection, which the stop waits for.
            Thread.sleep(forTimeInterval: 2.5)

            let started = Date()
            let ended = try server.terminate()
            let took = Date().timeIntervalSince(started)
            XCTAssertEqual(ended.status, 4, "entries were not stored (tester50a-F5): \(ended.stderr)")
            XCTAssertLessThan(took, 5, "at most the rest of the round under way's 5 s busy timeout: \(ended.stderr)")
            XCTAssertTrue(ended.stderr.contains("not stored: the database is busy"), ended.stderr)
            XCTAssertFalse(ended.stderr.contains("kept queued to try again"), ended.stderr)
        }
    }

    /// Regression (tester finding tester25a-F4): a stop with the write lock held logged a line
    /// per round it gave up, `journal: stopping: 4 entries and 4 hits of 1 mock not stored: an
    /// earlier round failed since the stop` (rounds of 4 large rows: 56 lines, each with a
    /// running total of the hits held again). Now the rounds given up are one line at the end,
    /// which with the failed round's line counts every entry.
    func testAStopThatGivesUpLogsOneLineForEveryRoundGivenUp() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let hold = try JournalWriterHold(path: database)
            defer { hold.end() }
            Thread.sleep(forTimeInterval: 0.5)
            // 16 rows of 60,000-byte bodies: rounds of at most 256 KiB, four rows each.
            let body = [UInt8](repeating: UInt8(ascii: "b"), count: 60_000)
            for index in 1...16 { XCTAssertEqual(try client.request("POST", "/up\(index)", body: body).status, 404) }
            Thread.sleep(forTimeInterval: 1)

            let ended = try server.terminate()
            XCTAssertEqual(ended.status, 4, "entries were not stored (tester50a-F5): \(ended.stderr)")
            let lines = ended.stderr.split(separator: "\n").filter { $0.contains("journal: stopping: ") }
            let givenUp = lines.filter { $0.contains("an earlier round failed since the stop") }
            XCTAssertEqual(givenUp.count, 1, ended.stderr)
            // Every entry is counted once: the failed round's and the rounds given up.
            let counted = lines.compactMap { line -> Int? in
                guard let range = line.range(of: "journal: stopping: ") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
            XCTAssertEqual(counted.reduce(0, +), 16, ended.stderr)
        }
    }
}
