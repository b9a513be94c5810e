import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A stop (SIGTERM) while answers are held for their tenant's share of the journal queue
/// (docs/tenancy.md#fair-shares): the stopping server answers them 503 itself, and their rows and
/// hits say so.
final class JournalShareStopTests: XCTestCase {
    /// Regression (tester finding tester25a-F3, its repro with a held write lock, let go 0.5 s
    /// into the stop so the stop writes everything): the 16 held uploads got the stop's 503, yet
    /// their rows said 200 `mock` with the mock's body, and the mock's row counted their hits
    /// (228 = 212 answers sent + 16 not). Now each such row is the 503 that went out, `answeredBy`
    /// `none`, with the header fields that went out, and the mock's `hits` and `remaining_limit`
    /// count only the answers sent.
    func testHeldAnswersAtAStopAreJournaledAsThe503ThatWentOutAndKeepTheLimit() throws {
        let server = try TestServer { $0.threadCount = 1 }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "A", method: "POST", url: "/a/up", body: "ok", limit: 1000)
        let hold = try JournalWriterHold(server)
        defer { hold.end() }
        let uploads = try JournalShare.sendUploads(server, count: 25)
        usleep(300_000)
        XCTAssertGreaterThan(try E2E.metrics(client)["catbird_journal_held_entries"] ?? -1, 0)

        let stopped = server.stopInBackground()
        usleep(500_000)
        try hold.release()
        XCTAssertEqual(stopped.wait(timeout: .now() + 30), .success, "the stop ends")

        var statuses: [Int: Int] = [:]
        for upload in uploads { statuses[(try? upload.readResponse().status) ?? -1, default: 0] += 1 }
        let sent = statuses[200] ?? 0
        let refused = statuses[503] ?? 0
        XCTAssertEqual(sent + refused, uploads.count, "\(statuses)")
        XCTAssertGreaterThan(refused, 0, "held answers met the stop: \(statuses)")

        let rows = try hold.database.query(
            "SELECT status, answered_by, count(*) FROM requests WHERE tenant = 'A' GROUP BY 1, 2 ORDER BY 1")
        let grouped: [[Int]] = rows.map { [Int($0[0].intValue ?? -1), Int($0[2].intValue ?? -1)] }
        XCTAssertEqual(grouped, [[200, sent], [503, refused]], "\(rows.map { $0[1].stringValue ?? "" })")
        XCTAssertEqual(rows.last?[1].stringValue, "none")
        // The 503's row holds its header fields as they went out: Date and Content-Length
        // included (they held the response's own fields, neither of those).
        let refusal = try hold.database.query(
            "SELECT response_headers, length(response_body) FROM requests WHERE tenant = 'A' AND status = 503 LIMIT 1")
        let headersJSON = try XCTUnwrap(refusal.first?[0].stringValue)
        let headers = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(headersJSON.utf8)) as? [String: Any], headersJSON)
        XCTAssertEqual(headers["Content-Length"] as? String, refusal.first?[1].intValue.map { String($0) }, headersJSON)
        XCTAssertNotNil(headers["Date"], headersJSON)
        let mock = try hold.database.query("SELECT hits, remaining_limit FROM mocks WHERE tenant = 'A'")
        let counts: [Int]? = mock.first.map { [Int($0[0].intValue ?? -1), Int($0[1].intValue ?? -1)] }
        XCTAssertEqual(counts, [sent, 1000 - sent])
    }
}
