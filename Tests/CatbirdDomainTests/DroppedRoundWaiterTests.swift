@testable import CatbirdDomain
import CatbirdStorage
import CatbirdSupport
import CatbirdTestSupport
import Foundation
import XCTest

/// Strict durability's commit waiters (``JournalWriter/whenCommitted(_:_:)``) around a round
/// that is dropped, on a real database file.
final class DroppedRoundWaiterTests: XCTestCase {
    /// Regression (found when StorageFaultTests' strict case failed under the CI's load: with the
    /// database file deleted, 3 of 12 runs answered a mock 200 with its row dropped). After a
    /// dropped round the writer counted the round's tickets as done, then backed off (0.1 s) with
    /// its lock let go before it noted them dropped; a waiter that asked in that window found
    /// its ticket at or below the committed count and not among the dropped ones: told `true`,
    /// committed. Here a trigger refuses every journal row (three attempts, then the drop and the
    /// back-off); the ticket is asked about once the drop is counted, inside the back-off.
    func testAWaiterAskingDuringTheBackOffLearnsItsRoundWasDropped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-dropped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let connection = try Database(path: directory.appendingPathComponent("catbird.sqlite").path, mode: .readWrite)
        _ = try Schema.migrate(connection)
        try connection.execute(
            "CREATE TRIGGER refuse_rows BEFORE INSERT ON journal_rows BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        let database = SerialDatabase(connection)
        defer { database.close() }
        let writer = JournalWriter(database: database, bodyLimit: 4096, holdsWhatFails: false, log: Logger(level: .error))
        defer { writer.stop() }

        let ticket = writer.append(JournalEntry(
            time: "2026-12-03T16:00:00.000Z", tenant: TenantID("t"), method: "GET", url: "/ok", requestHeaders: "{}",
            requestBody: [], status: 200, responseHeaders: "{}", responseBody: Array("ok".utf8), answeredBy: .mock,
            mockHit: nil, durationMs: 0.1, problem: nil))
        let deadline = Date().addingTimeInterval(10)
        while writer.statistics().droppedRows == 0 && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(writer.statistics().droppedRows, 1, "the round is dropped after its three attempts")

        let told = Locked<Bool?>(nil)
        writer.whenCommitted(ticket) { committed in told.set(committed) }
        XCTAssertEqual(told.value, false, "asked after the drop, the waiter is told at once that its entry was not committed")
    }
}
