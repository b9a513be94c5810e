import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding tester39b-F1: with `--durability strict` and the database's write lock held
/// by another process (the finding's `sqlite3` with `BEGIN IMMEDIATE`), every mock answer waited
/// for its round's 3 attempts of a 5 s busy timeout each, while health said `ok` for those 15 s
/// and turned 503 only once the round was dropped and its clients had their 503. Health now says
/// so from the first failed attempt; the round's commit ends it.
final class StrictHealthWhileRetryingTests: XCTestCase {
    func testHealthIsDegradedFromAStrictRoundsFirstFailedAttemptUntilItCommits() throws {
        let server = try TestServer { $0.durability = .strict }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, url: "/held", body: "held")
        XCTAssertEqual(try control.request("GET", "/catbird/api/health").status, 200)

        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let app = try server.client()
        try app.send("GET", "/held")
        // The first attempt fails after its 5 s busy timeout; health says so soon after.
        var degraded: RawResponse?
        let deadline = Date().addingTimeInterval(12)
        while Date() < deadline {
            let health = try control.request("GET", "/catbird/api/health")
            if health.status == 503 { degraded = health; break }
            Thread.sleep(forTimeInterval: 0.25)
        }
        let health = try XCTUnwrap(degraded, "health never said the writer failed while the answer was withheld")
        let reason = health.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("the round under way failed 1 of its 3 attempts and is tried again"), reason)
        XCTAssertTrue(reason.contains("mocks' answers are withheld until their journal rows are written"), reason)
        XCTAssertFalse(reason.contains("failed round"), "no round has failed yet: \(reason)")

        try hold.release()
        let answer = try app.readResponse()
        XCTAssertEqual(answer.status, 200, "the next attempt commits, and the answer leaves: \(answer.text)")
        XCTAssertEqual(answer.text, "held")
        XCTAssertEqual(try control.request("GET", "/catbird/api/health").status, 200, "the round's commit ends it")
    }
}
