import CatbirdTestSupport
import Foundation
import XCTest

/// Spec part 2: mocks and journal are stored in SQLite and survive a restart, `limit` counters
/// included. Every test stops the server and starts a new one on the same database file.
final class PersistenceTests: XCTestCase {
    /// The listed mocks reduced to what must survive: id, url, remaining limit, hits, body.
    private struct ListedMock: Equatable {
        let id: Int?
        let url: String?
        let remainingLimit: Int?
        let hits: Int?
        let body: String?
    }

    private func listed(_ client: RawHTTPClient, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws -> [ListedMock] {
        try E2E.mocks(client, tenant: tenant, file: file, line: line).map { mock in
            let pattern = mock["pattern"] as? [String: Any]
            let response = mock["response"] as? [String: Any]
            return ListedMock(
                id: E2E.int(mock["id"]), url: (pattern?["url"] as? [String: Any])?["value"] as? String,
                remainingLimit: E2E.int(mock["remainingLimit"]), hits: E2E.int(mock["hits"]),
                body: (response?["body"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    private func journalIDsAndURLs(_ client: RawHTTPClient, tenant: String?) throws -> [String] {
        try E2E.journal(client, tenant: tenant).map { "\(E2E.int($0["id"]) ?? -1) \($0["url"] as? String ?? "?")" }
    }

    func testMocksLimitsHitsAndJournalSurviveARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/always", body: "always")
        try E2E.addMock(client, tenant: nil, url: "/limited", body: "limited", limit: 3)
        try E2E.addMock(client, tenant: nil, url: "/last", body: "last")
        try E2E.addMock(client, tenant: "P", url: "/p/first", body: "P first")
        try E2E.addMock(client, tenant: "P", url: "/p/second", body: "P second")

        XCTAssertEqual(try client.request("GET", "/limited").text, "limited")
        XCTAssertEqual(try client.request("GET", "/always").text, "always")
        XCTAssertEqual(try client.request("GET", "/nothing-here").status, 404)
        XCTAssertEqual(try client.request("GET", "/p/second", headers: E2E.tenantHeader("P")).text, "P second")
        XCTAssertEqual(try client.request("GET", "/always", headers: E2E.tenantHeader("P")).text, "always")

        let defaultBefore = try listed(client, tenant: nil)
        let pBefore = try listed(client, tenant: "P")
        XCTAssertEqual(defaultBefore.map(\.url), ["/always", "/limited", "/last"])
        XCTAssertEqual(defaultBefore[1].remainingLimit, 2)
        XCTAssertEqual(defaultBefore[1].hits, 1)
        XCTAssertEqual(defaultBefore[0].hits, 2, "served once to the default tenant and once to P")
        let defaultJournalBefore = try journalIDsAndURLs(client, tenant: nil)
        let pJournalBefore = try journalIDsAndURLs(client, tenant: "P")
        XCTAssertEqual(defaultJournalBefore.count, 3)
        XCTAssertEqual(pJournalBefore.count, 2)

        try server.restart()
        client = try server.client()

        let defaultAfter = try listed(client, tenant: nil)
        XCTAssertEqual(defaultAfter, defaultBefore, "same order, ids, remaining limit, hits and bodies")
        XCTAssertEqual(defaultAfter.map(\.remainingLimit), [nil, 2, nil])
        XCTAssertEqual(defaultAfter.map(\.hits), [2, 1, 0])
        XCTAssertEqual(try listed(client, tenant: "P"), pBefore)
        XCTAssertEqual(try journalIDsAndURLs(client, tenant: nil), defaultJournalBefore)
        XCTAssertEqual(try journalIDsAndURLs(client, tenant: "P"), pJournalBefore)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).map { $0["url"] as? String }, ["/limited", "/always", "/nothing-here"])

        // The limited mock serves exactly its remaining two responses, then is gone.
        XCTAssertEqual(try client.request("GET", "/limited").text, "limited")
        XCTAssertEqual(try client.request("GET", "/limited").text, "limited")
        E2E.assertError(try client.request("GET", "/limited"), status: 404, reasonContains: "Not Found")
        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/always", "/last"])
        XCTAssertEqual(try client.request("GET", "/always").text, "always")
        XCTAssertEqual(try client.request("GET", "/p/first", headers: E2E.tenantHeader("P")).text, "P first")

        // New mocks go after the loaded ones.
        try E2E.addMock(client, tenant: nil, url: "/new", body: "new")
        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/always", "/last", "/new"])
        // New journal ids continue after the old ones.
        let ids = try E2E.journal(client, tenant: nil).compactMap { E2E.int($0["id"]) }
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(Set(ids).count, ids.count)
    }

    func testHitsServedRightBeforeARestartAreKept() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/counted", body: "c", limit: 10)
        for _ in 0..<7 { XCTAssertEqual(try client.request("GET", "/counted", headers: E2E.tenantHeader("P")).status, 200) }

        try server.restart()
        client = try server.client()

        let mock = try listed(client, tenant: "P").first
        XCTAssertEqual(mock?.hits, 7)
        XCTAssertEqual(mock?.remainingLimit, 3)
        for _ in 0..<3 { XCTAssertEqual(try client.request("GET", "/counted", headers: E2E.tenantHeader("P")).status, 200) }
        XCTAssertEqual(try client.request("GET", "/counted", headers: E2E.tenantHeader("P")).status, 404)
    }

    func testALimitOneMockServedBeforeTheRestartIsGoneAfterIt() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: nil, url: "/once", body: "once", limit: 1)
        try E2E.addMock(client, tenant: nil, url: "/unserved-once", body: "still here", limit: 1)
        try E2E.addMock(client, tenant: nil, url: "/zero", body: "zero behaves as one", limit: 0)
        XCTAssertEqual(try client.request("GET", "/once").text, "once")
        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/unserved-once", "/zero"])

        try server.restart()
        client = try server.client()

        let after = try listed(client, tenant: nil)
        XCTAssertEqual(after.map(\.url), ["/unserved-once", "/zero"])
        XCTAssertEqual(after.map(\.remainingLimit), [1, 1])
        E2E.assertError(try client.request("GET", "/once"), status: 404)
        XCTAssertEqual(try client.request("GET", "/unserved-once").text, "still here")
        XCTAssertEqual(try client.request("GET", "/unserved-once").status, 404)
        XCTAssertEqual(try client.request("GET", "/zero").text, "zero behaves as one")
        XCTAssertEqual(try client.request("GET", "/zero").status, 404)
        XCTAssertEqual(try listed(client, tenant: nil), [])
        // And the exhausted mocks stay gone across one more restart.
        try server.restart()
        client = try server.client()
        XCTAssertEqual(try listed(client, tenant: nil), [])
    }

    func testReplaceInPlaceKeepsItsPositionAfterARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/other", body: "other")
        try E2E.addMock(client, tenant: "P", url: "/item/*", kind: "wildcard", body: "wildcard v1")
        try E2E.addMock(client, tenant: "P", url: "/item/1", body: "equal")
        XCTAssertEqual(try client.request("GET", "/item/1", headers: E2E.tenantHeader("P")).text, "wildcard v1")

        // Same pattern (method, url kind and value, headers): replaced where it stands.
        try E2E.addMock(client, tenant: "P", url: "/item/*", kind: "wildcard", body: "wildcard v2")
        let before = try listed(client, tenant: "P")
        XCTAssertEqual(before.map(\.body), ["other", "wildcard v2", "equal"])
        XCTAssertEqual(try client.request("GET", "/item/1", headers: E2E.tenantHeader("P")).text, "wildcard v2")

        try server.restart()
        client = try server.client()

        let after = try listed(client, tenant: "P")
        XCTAssertEqual(after.map(\.body), ["other", "wildcard v2", "equal"])
        XCTAssertEqual(after.map(\.id), before.map(\.id))
        XCTAssertEqual(try client.request("GET", "/item/1", headers: E2E.tenantHeader("P")).text, "wildcard v2")
        // Replacing again after the restart still keeps the place.
        try E2E.addMock(client, tenant: "P", url: "/item/*", kind: "wildcard", body: "wildcard v3")
        XCTAssertEqual(try listed(client, tenant: "P").map(\.body), ["other", "wildcard v3", "equal"])
        XCTAssertEqual(try client.request("GET", "/item/1", headers: E2E.tenantHeader("P")).text, "wildcard v3")
    }

    // MARK: - Hits written after a later control change (regression tests)

    /// A served hit is written to its mock's row later, by the journal writer, addressed by row
    /// id. When the mock is replaced in place before that write, the replacement may get the
    /// very same row id, and the old mock's hit is then charged to it. Each round serves a
    /// `limit: 100` mock and replaces it in the same pipeline; the replacement is listed with
    /// hits 0 and remaining 100, and must be stored that way too.
    func testAHitStillBeingWrittenIsNotChargedToTheMockThatReplacedIt() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        let rounds = 200
        for round in 0..<rounds {
            let tenant = "replace-\(round)"
            try E2E.addMock(client, tenant: tenant, url: "/a", body: "old", limit: 100)
            let answers = try E2E.pipeline(client, [
                .init(method: "GET", target: "/a", headers: E2E.tenantHeader(tenant)),
                E2E.control(E2E.updateAction(url: "/a", body: Array("new".utf8), limit: 100), tenant: tenant),
            ])
            XCTAssertEqual(answers.map(\.status), [200, 201])
            XCTAssertEqual(answers.first?.text, "old")
        }
        for round in 0..<rounds {
            let mock = try listed(client, tenant: "replace-\(round)").first
            XCTAssertEqual([mock?.hits, mock?.remainingLimit], [0, 100], "replace-\(round) before the restart")
        }

        try server.restart()
        client = try server.client()

        var charged: [String] = []
        for round in 0..<rounds {
            let mock = try listed(client, tenant: "replace-\(round)").first
            XCTAssertEqual(mock?.body, "new")
            if mock?.hits != 0 || mock?.remainingLimit != 100 {
                charged.append("replace-\(round): hits \(mock?.hits ?? -1), remaining \(mock?.remainingLimit ?? -1)")
            }
        }
        XCTAssertEqual(charged, [], "replacements charged with the replaced mock's hit after the restart")
    }

    /// The same with `removeAll`: the limit-1 mock's last hit (a pending "delete row N") is
    /// written after `removeAll` has deleted the row and a new mock has been stored as row N,
    /// so the new mock's row is deleted: it is served until the restart and lost by it.
    func testAMockAddedRightAfterRemoveAllSurvivesARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        let rounds = 200
        for round in 0..<rounds {
            let tenant = "clear-\(round)"
            try E2E.addMock(client, tenant: tenant, url: "/once", body: "once", limit: 1)
            let answers = try E2E.pipeline(client, [
                .init(method: "GET", target: "/once", headers: E2E.tenantHeader(tenant)),
                E2E.control(#"{"type":"removeAll"}"#, tenant: tenant),
                E2E.control(E2E.updateAction(url: "/next", body: Array("next".utf8)), tenant: tenant),
            ])
            XCTAssertEqual(answers.map(\.status), [200, 204, 201])
        }
        // The tenants listing counts stored rows: every tenant stores its one new mock.
        let storedCounts = try E2E.tenants(client).filter { ($0["id"] as? String)?.hasPrefix("clear-") == true }
        XCTAssertEqual(storedCounts.count, rounds)
        let missingRows = storedCounts.filter { E2E.int($0["mocks"]) != 1 }.compactMap { $0["id"] as? String }
        XCTAssertEqual(missingRows, [], "tenants whose new mock's row is already gone (still served from memory)")

        try server.restart()
        client = try server.client()

        var lost: [String] = []
        for round in 0..<rounds where try listed(client, tenant: "clear-\(round)").map(\.url) != ["/next"] {
            lost.append("clear-\(round)")
        }
        XCTAssertEqual(lost, [], "mocks added right after removeAll and lost by the restart")
    }
}
