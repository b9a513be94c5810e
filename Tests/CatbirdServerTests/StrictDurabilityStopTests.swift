import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A stop while another process holds the database's write lock, under `--durability strict`
/// (README.md#storage-faults, the busy row: "at most one 5 s busy timeout once the stop began").
final class StrictDurabilityStopTests: XCTestCase {
    /// Regression (tester finding tester21b-F14, its repro): with the write lock held by
    /// another connection, three requests to a mock parked waiting for their entries' commit,
    /// then SIGTERM: the round under way kept all three of its attempts after the stop (the
    /// rest of one 5 s busy timeout, then two full ones: 14.4 s after the signal), and the
    /// parked clients waited as long. Now the attempt under way ends the round: the stop
    /// takes at most one busy timeout (5 s; under 9 s here, with room for a loaded machine),
    /// and the three clients get 503.
    func testAStopUnderAHeldWriteLockWaitsOneBusyTimeoutAtMost() throws {
        try LaunchedServer.withTemporaryDatabase(["--durability", "strict"]) { server, client, database in
            try E2E.addMock(client, url: "/l1", body: "ok", limit: 10)
            try E2E.addMock(client, url: "/l2", body: "ok", limit: 10)
            try E2E.addMock(client, url: "/l3", body: "ok", limit: 10)
            let hold = try JournalWriterHold(path: database)
            defer { hold.end() }
            let parked = try (1...3).map { index in
                let connection = try RawHTTPClient(port: server.port, timeoutSeconds: 40)
                try connection.send("GET", "/l\(index)")
                return connection
            }
            usleep(1_000_000)  // the writer's round is in its first attempt, waiting for the lock
            let signalled = ContinuousClock.now
            let (status, _, stderr) = try server.terminate()
            let stopTook = ContinuousClock.now - signalled
            XCTAssertEqual(status, 4, "the round under way was not stored: \(stderr)")
            XCTAssertLessThan(stopTook, .seconds(9), "one busy timeout at most after the stop: \(stderr)")
            XCTAssertFalse(stderr.contains("attempt 2 of 3"), stderr)
            XCTAssertTrue(stderr.contains("journal: stopping: "), stderr)
            for connection in parked {
                XCTAssertEqual(try connection.readResponse().status, 503, "nothing acknowledged that was not journaled")
            }
        }
    }
}
