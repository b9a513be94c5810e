@testable import CatbirdDomain
import CatbirdMatching
import CatbirdStorage
@_spi(Server) import CatbirdWire
import XCTest

/// A journal count's time limit (docs/matching.md#evaluation-budget) holds for each run of its
/// statement: `catbird_request_matches` compiles its pattern once per run (SQLite's auxiliary
/// data, dropped at `sqlite3_reset`) with that run's deadline, and a cached statement run again
/// later gets the new one. On ``JournalPatternSQLTests``' in-memory journal.
extension JournalPatternSQLTests {
    /// The same statement (cached by its SQL text) run a second time, after the first run's
    /// deadline passed, with a fresh deadline: if the compiled pattern kept the first run's
    /// deadline, ICU's progress check would stop the second run at once ("past the time limit").
    func testASecondRunOfACountUsesItsOwnDeadline() throws {
        try journalSlowRow()
        let firstDeadline = ContinuousClock.now.advanced(by: .milliseconds(300))
        XCTAssertEqual(try countSlowPattern(until: firstDeadline), 0)
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertGreaterThan(ContinuousClock.now, firstDeadline)
        XCTAssertEqual(try countSlowPattern(until: ContinuousClock.now.advanced(by: .seconds(5))), 0)
    }

    /// And a run whose own deadline has passed is stopped: the guard is not lost either.
    func testACountRunPastItsDeadlineIsStopped() throws {
        try journalSlowRow()
        XCTAssertEqual(try countSlowPattern(until: ContinuousClock.now.advanced(by: .seconds(5))), 0)
        XCTAssertThrowsError(try countSlowPattern(until: ContinuousClock.now)) { error in
            XCTAssertTrue("\(error)".contains("past the time limit"), "\(error)")
        }
    }

    /// `(a+)+` over 18 a's and a mismatch: ICU backtracks about 2^18 steps (milliseconds),
    /// enough for its progress callback, which checks the deadline, to run.
    private func journalSlowRow() throws {
        try database.run(
            "INSERT INTO journal_rows (time, tenant, method, url, status, answered_by, duration_ms) VALUES ('x', 't', 'GET', ?, 200, 'none', 0)",
            [.text("/" + String(repeating: "a", count: 18) + "b")])
    }

    private func countSlowPattern(until deadline: ContinuousClock.Instant) throws -> Int64? {
        let condition = JournalPatternSQL(RequestPattern(method: .GET, url: .regexp("^/(a+)+$")), deadline: deadline)
        return try database.query(
            "SELECT count(*) FROM requests WHERE tenant = ?" + condition.conditions, [.text("t")] + condition.bindings
        ).first?[0].intValue
    }
}
