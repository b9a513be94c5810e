import CatbirdTestSupport
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The journal writer's failure after its rows were dropped (the database file moved away
/// under the server, README.md#storage-faults): it ends on its own once the file is back, with
/// nothing queued to start a round, and while it lasts health's reason says what became of the
/// rows.
final class WriterRecoveryTests: XCTestCase {
    /// Regression (tester finding T19B-F12, its repro): a fresh file moved away, one `GET /z`
    /// (a 404, no mock: its row dropped), the file moved back. Health stayed `503 degraded` for
    /// good on the idle server (16 s and more), since nothing was queued and the writer ran no
    /// other round; only the next journaled request ended it. The same with `--durability strict`
    /// and a mock hit during the outage (its answer withheld, nothing held). Now the writer checks
    /// the database at its back-off's pace and health is 200 within seconds, with no request.
    func testHealthRecoversOnItsOwnOnceTheFileIsBack() throws {
        for durability in ["relaxed", "strict"] {
            try LaunchedServer.withTemporaryDatabase(["--durability", durability]) { server, client, database in
                try E2E.addMock(client, url: "/hit", body: "hit")
                let moved = URL(fileURLWithPath: database).deletingLastPathComponent().appendingPathComponent("r3-moved.sqlite").path
                XCTAssertEqual(rename(database, moved), 0)
                if durability == "relaxed" {
                    XCTAssertEqual(try client.request("GET", "/z").status, 404)
                } else {
                    XCTAssertEqual(try client.request("GET", "/hit").status, 503, "strict: the answer is withheld")
                }
                try waitFor("the drop logged", seconds: 10) { server.stderrText.contains("journal: dropped 1 entry") }
                XCTAssertEqual(rename(moved, database), 0)

                try waitFor("health 200 with no request (\(durability))", seconds: 10) {
                    try client.request("GET", "/catbird/api/health").status == 200
                }
                XCTAssertTrue(server.stderrText.contains("journal: the database takes writes again"), server.stderrText)
                XCTAssertEqual(try E2E.metrics(client)["catbird_journal_dropped_rows_total"], 1)
                let ended = try server.terminate()
                XCTAssertEqual(ended.status, 4, "one entry was dropped in this run: \(ended.stderr)")
            }
        }
    }

    /// Regression (T19B-F12): while the failure lasted after the file was back, health said
    /// `the journal writer cannot write (1 row were dropped (see the log)), 1 failed round: its
    /// rows and mock hits stay queued …; journal reads that would miss them answer 503`: the
    /// drop given as the cause, and two claims that were false (nothing was queued, the reads
    /// answered 200). Here another connection holds the write lock from before the file is moved,
    /// so the writer's checks fail once it is back and the reason can be read; it names the cause
    /// and the dropped row, and ends once the lock is let go.
    func testTheReasonSaysTheRowWasDroppedAndTheFailureEndsByItself() throws {
        try LaunchedServer.withTemporaryDatabase { server, client, database in
            let hold = try JournalWriterHold(path: database)
            defer { hold.end() }
            let moved = database + ".moved"
            XCTAssertEqual(rename(database, moved), 0)
            XCTAssertEqual(try client.request("GET", "/z").status, 404)
            try waitFor("the drop logged", seconds: 10) { server.stderrText.contains("journal: dropped 1 entry") }
            XCTAssertEqual(rename(moved, database), 0)

            let health = try client.request("GET", "/catbird/api/health")
            XCTAssertEqual(health.status, 503, health.text)
            let reason = health.object["reason"] as? String ?? ""
            XCTAssertTrue(
                reason.hasPrefix("the journal writer cannot write (the database file was deleted or replaced under the running server"),
                reason)
            XCTAssertTrue(
                reason.hasSuffix(
                    "), 1 failed round: 1 journal row was dropped meanwhile (lost; each drop is logged; mock hits are kept and "
                        + "written later); the writer tries the database again every 2 s at most, so this ends by itself once it "
                        + "takes writes again; mocks are still served from memory"),
                reason)
            XCTAssertFalse(reason.contains("stay queued"), reason)
            XCTAssertFalse(reason.contains("answer 503"), reason)
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests").status, 200, "nothing queued: reads answer")

            try hold.release()
            try waitFor("health 200 once the lock is let go", seconds: 10) {
                try client.request("GET", "/catbird/api/health").status == 200
            }
        }
    }

    /// Polls `condition` every 50 ms until it holds, failing the test after `seconds`.
    private func waitFor(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(50_000)
        }
        XCTFail("\(what): not within \(seconds) s")
    }
}
