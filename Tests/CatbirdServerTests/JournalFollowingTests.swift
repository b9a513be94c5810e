import CatbirdTestSupport
import Foundation
import XCTest

/// The listing's `newestId` and `serverRun` (docs/protocol.md#following-the-journal): what tells
/// a client following the journal with `since=` that its ids are not this journal's (tester
/// finding T18A-F3: the web page kept `since=5` across a restart on `--db :memory:`, whose ids
/// start again at 1, and showed nothing new until reloaded).
final class JournalFollowingTests: XCTestCase {
    private func members(_ page: [String: Any]) -> (newestId: Int?, serverRun: String?) {
        (JSONNumber.int(page["newestId"]), page["serverRun"] as? String)
    }

    /// The finding's sequence: five requests, a restart on a fresh database, one request, then
    /// the page's live poll with its old `since`.
    func testARestartOnAFreshDatabaseIsToldToAPollKeepingItsOldSince() throws {
        let server = try TestServer { $0.databasePath = ":memory:" }
        defer { server.removeFiles() }
        var client = try server.client()
        for index in 1...5 { _ = try client.request("GET", "/r\(index)") }
        let before = try E2E.journalPage(client, tenant: nil, query: "bodies=false&order=newest&limit=100")
        XCTAssertEqual(JSONNumber.int(before["nextSince"]), 5)
        let (newestBefore, runBefore) = members(before)
        XCTAssertEqual(newestBefore, 5)
        let run = try XCTUnwrap(runBefore, "no serverRun in \(before)")
        XCTAssertEqual(members(try E2E.journalPage(client, tenant: nil, query: "since=5")).serverRun, run, "one run, one id")

        try server.restart()
        client = try server.client()
        _ = try client.request("GET", "/after-restart")
        let poll = try E2E.journalPage(client, tenant: nil, query: "bodies=false&since=5&limit=100&wait=3")
        // As before (a client that ignores the new members is answered as it was) …
        XCTAssertEqual((poll["requests"] as? [Any])?.count, 0, "\(poll)")
        XCTAssertEqual(JSONNumber.int(poll["nextSince"]), 5)
        XCTAssertEqual(poll["hasMore"] as? Bool, false)
        // … and the poll is told: the journal's newest id is below its since, and another run answers.
        let (newest, newRun) = members(poll)
        XCTAssertEqual(newest, 1, "\(poll)")
        XCTAssertNotNil(newRun)
        XCTAssertNotEqual(newRun, run, "a restarted server has another serverRun")
        let fresh = try E2E.journal(client, tenant: nil, query: "bodies=false&since=0")
        XCTAssertEqual(fresh.map { $0["url"] as? String }, ["/after-restart"], "listing afresh finds the new entry")
    }

    /// `newestId` is the tenant's, whatever the filters, and leaves out a cleared journal's rows
    /// (a `since` kept from before the clear is then above it); ids go on increasing.
    func testNewestIdIsTheTenantsWhateverTheFiltersAndDropsWhenItsJournalIsCleared() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for path in ["/a1", "/a2", "/a3"] { _ = try client.request("GET", path, headers: E2E.tenantHeader("a")) }
        _ = try client.request("GET", "/b1", headers: E2E.tenantHeader("b"))
        XCTAssertEqual(members(try E2E.journalPage(client, tenant: "a", query: "url=/nothing")).newestId, 3, "filters aside")
        XCTAssertEqual(members(try E2E.journalPage(client, tenant: "b", query: "")).newestId, 4, "tenant b's own newest")
        XCTAssertEqual(members(try E2E.journalPage(client, tenant: "c", query: "")).newestId, 0, "a tenant with no entry")

        let cleared = try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("a"))
        XCTAssertEqual(cleared.status, 200, cleared.text)
        let afterClear = try E2E.journalPage(client, tenant: "a", query: "since=3")
        XCTAssertEqual(members(afterClear).newestId, 0, "\(afterClear)")
        XCTAssertEqual(members(try E2E.journalPage(client, tenant: "b", query: "")).newestId, 4, "another tenant's clear changes nothing here")

        _ = try client.request("GET", "/a5", headers: E2E.tenantHeader("a"))
        let next = try E2E.journalPage(client, tenant: "a", query: "since=3")
        XCTAssertEqual(members(next).newestId, 5)
        XCTAssertEqual((next["requests"] as? [[String: Any]])?.map { $0["url"] as? String }, ["/a5"])
    }

    /// tester20b-F1, the finding's sequence: a shard's five entries shown, its tenant dropped, one
    /// request journaled. Ids go on increasing across the drop, so the poll's `since` was below
    /// `newestId` and the page showed the new entry above the dropped ones; `oldestId` is above
    /// every entry shown. Also after a journal clear, and 0 for a tenant with no entry.
    func testOldestIdIsAboveEveryEntryShownOnceTheTenantWasDroppedOrCleared() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/other", headers: E2E.tenantHeader("other"))
        for index in 0..<5 { _ = try client.request("GET", "/old/\(index)", headers: E2E.tenantHeader("pg")) }
        let shown = try E2E.journalPage(client, tenant: "pg", query: "bodies=false&order=newest&limit=100")
        let since = try XCTUnwrap(JSONNumber.int(shown["nextSince"]))
        XCTAssertEqual(JSONNumber.int(shown["oldestId"]), since - 4, "\(shown)")
        XCTAssertEqual(JSONNumber.int(shown["newestId"]), since)

        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/pg").status, 204)
        _ = try client.request("GET", "/new/1", headers: E2E.tenantHeader("pg"))
        let poll = try E2E.journalPage(client, tenant: "pg", query: "bodies=false&since=\(since)&limit=100&wait=3")
        XCTAssertEqual((poll["requests"] as? [[String: Any]])?.map { $0["url"] as? String }, ["/new/1"])
        XCTAssertEqual(JSONNumber.int(poll["newestId"]), since + 1, "\(poll)")
        XCTAssertEqual(JSONNumber.int(poll["oldestId"]), since + 1, "every entry shown (at most \(since)) is gone: \(poll)")

        for index in 0..<2 { _ = try client.request("GET", "/more/\(index)", headers: E2E.tenantHeader("pg")) }
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("pg")).status, 200)
        _ = try client.request("GET", "/after-clear", headers: E2E.tenantHeader("pg"))
        let afterClear = try E2E.journalPage(client, tenant: "pg", query: "bodies=false&since=\(since + 3)")
        XCTAssertEqual(JSONNumber.int(afterClear["oldestId"]), since + 4, "\(afterClear)")
        XCTAssertEqual(JSONNumber.int(try E2E.journalPage(client, tenant: "none", query: "")["oldestId"]), 0)
        XCTAssertEqual(JSONNumber.int(try E2E.journalPage(client, tenant: "other", query: "")["oldestId"]), 1, "another tenant's own")
    }

    /// Only the listing carries them; the unmatched listing keeps its shape.
    func testTheUnmatchedListingHasNeitherMember() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        _ = try client.request("GET", "/missing")
        let answer = try client.request("GET", "/catbird/api/requests/unmatched")
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertNil(answer.object["newestId"])
        XCTAssertNil(answer.object["oldestId"])
        XCTAssertNil(answer.object["serverRun"])
        XCTAssertEqual((answer.object["requests"] as? [Any])?.count, 1)
    }
}
