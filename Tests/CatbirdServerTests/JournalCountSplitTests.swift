import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A count over 100,000 ids or more is cut into parts that a spare thread counts beside the
/// caller (docs/protocol.md#count): the parts' sum must be exactly the count, for every pattern
/// kind, whatever ids the parts' ends fall on. On a real server and file: the journal's id
/// sequence is moved on between rounds of requests (a second connection on the file), so two
/// tenants' few rows lie spread over 240,000 ids, the first and last at the range's ends. The
/// metric `catbird_journal_count_parts_total` shows the counts were cut into parts and that a
/// spare thread counted some (the totals alone would pass for counts never shared).
final class JournalCountSplitTests: XCTestCase {
    func testACountSpreadOverManyIdsCountsEachRowOnceForEveryPatternKind() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let rounds = 24
        for round in 0..<rounds {
            let token: [(String, String)] = round % 3 == 0 ? [("x-TOKEN", "t\(round % 2)"), ("X-Token", "second")] : [("X-Token", "t\(round % 2)")]
            _ = try client.request("GET", "/api/users/\(round)", headers: E2E.tenantHeader("split") + token)
            _ = try client.request("GET", "/api/items/\(round)?page=\(round % 5)", headers: E2E.tenantHeader("split"))
            _ = try client.request("POST", "/api/users/\(round)", headers: E2E.tenantHeader("split") + token)
            _ = try client.request("GET", "/api/users/\(round)", headers: E2E.tenantHeader("other") + token)
            // Committed (a listing waits for the journal), then the next rows' ids move on by 10,000.
            _ = try E2E.journalPage(client, tenant: "split", query: "limit=1")
            let database = try Database(path: server.databasePath)
            try database.execute("UPDATE sqlite_sequence SET seq = seq + 10000 WHERE name = 'journal_rows'")
        }
        let ids = try E2E.sqlRows(client, "SELECT min(id), max(id), count(*) FROM requests", tenant: "split")
        let first = try XCTUnwrap(JSONNumber.int(ids.first?[0])), newest = try XCTUnwrap(JSONNumber.int(ids.first?[1]))
        XCTAssertGreaterThanOrEqual(newest - first, 200_000, "the rows are spread over more ids than a count splits at")
        XCTAssertEqual(JSONNumber.int(ids.first?[2]), rounds * 3)

        let odd = (0..<rounds).filter { $0 % 2 == 1 }.count
        let cases: [(String, Int)] = [
            (#"{"method":"GET","url":{"kind":"equal","value":"/api/users/\#(rounds - 1)"},"headers":{}}"#, 1),
            (#"{"method":"GET","url":{"kind":"equal","value":"/api/users/0"},"headers":{}}"#, 1),
            (#"{"method":"GET","url":{"kind":"wildcard","value":"/API/users/*"},"headers":{}}"#, rounds),
            (#"{"method":"POST","url":{"kind":"regexp","value":"users/[0-9]+$"},"headers":{}}"#, rounds),
            (#"{"method":"GET","url":{"kind":"regexp","value":"(?i)ITEMS/(1|2)\\d*\\?"},"headers":{}}"#,
             (0..<rounds).filter { "\($0)".hasPrefix("1") || "\($0)".hasPrefix("2") }.count),
            (#"{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{"X-Token":{"kind":"equal","value":"t1"}}}"#, odd),
            (#"{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{"x-token":{"kind":"wildcard","value":"T*"}}}"#, rounds),
            (#"{"method":"GET","url":{"kind":"wildcard","value":"*"},"headers":{"X-Token":{"kind":"equal","value":"second"}}}"#, 0),
            (#"{"method":"GET","url":{"kind":"regexp","value":"users"},"headers":{"X-TOKEN":{"kind":"regexp","value":"^t0$"}}}"#,
             rounds - odd),
        ]
        let before = try countParts(client)
        XCTAssertEqual(before.caller + before.spareThread, 0, "no count was shared before")
        for (pattern, expected) in cases {
            XCTAssertEqual(try E2E.count(client, tenant: "split", patternJSON: pattern), expected, pattern)
        }

        // The counts were shared: each shared count is cut into 16 parts (the range holds far
        // more ids), counted by the caller or the spare thread. One that was not shared (both
        // spare threads still finishing) adds none.
        let parts = try countParts(client)
        XCTAssertGreaterThan(parts.caller + parts.spareThread, 0, "no count was cut into parts")
        XCTAssertEqual((parts.caller + parts.spareThread) % 16, 0, "\(parts): whole counts of 16 parts")
        // And a spare thread took part: it starts while the caller already counts, so it may
        // find every part of one count taken; the count is asked again (at most 200 times) until
        // it took one.
        var spareThread = parts.spareThread
        var again = 0
        while spareThread == 0 && again < 200 {
            XCTAssertEqual(try E2E.count(client, tenant: "split", patternJSON: cases[2].0), cases[2].1)
            spareThread = try countParts(client).spareThread
            again += 1
        }
        XCTAssertGreaterThan(spareThread, 0, "no part of \(again) more shared counts was counted by a spare thread")
    }

    /// `catbird_journal_count_parts_total` by who counted the parts.
    private func countParts(_ client: RawHTTPClient) throws -> (caller: Int, spareThread: Int) {
        let metrics = try E2E.metrics(client)
        let name = "catbird_journal_count_parts_total"
        return (Int(try XCTUnwrap(metrics[name + #"{counted_by="caller"}"#])),
                Int(try XCTUnwrap(metrics[name + #"{counted_by="spare_thread"}"#])))
    }
}
