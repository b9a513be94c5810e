import CatbirdTestSupport
import Foundation
import XCTest

/// docs/schema.md#tables: mocks and journal are stored in SQLite and survive a restart, `limit` counters
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
                id: JSONNumber.int(mock["id"]), url: (pattern?["url"] as? [String: Any])?["value"] as? String,
                remainingLimit: JSONNumber.int(mock["remainingLimit"]), hits: JSONNumber.int(mock["hits"]),
                body: (response?["body"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    private func journalIDsAndURLs(_ client: RawHTTPClient, tenant: String?) throws -> [String] {
        try E2E.journal(client, tenant: tenant).map { "\(JSONNumber.int($0["id"]) ?? -1) \($0["url"] as? String ?? "?")" }
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
        E2E.assertError(try client.request("GET", "/limited"), status: 404, reasonContains: "no mock matched GET /limited")
        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/always", "/last"])
        XCTAssertEqual(try client.request("GET", "/always").text, "always")
        XCTAssertEqual(try client.request("GET", "/p/first", headers: E2E.tenantHeader("P")).text, "P first")

        // New mocks go after the loaded ones.
        try E2E.addMock(client, tenant: nil, url: "/new", body: "new")
        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/always", "/last", "/new"])
        // New journal ids continue after the old ones.
        let ids = try E2E.journal(client, tenant: nil).compactMap { JSONNumber.int($0["id"]) }
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

    func testALimitedMockServedFromManyConnectionsKeepsExactCountsAcrossARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        try E2E.addMock(client, tenant: "P", url: "/shared-limit", body: "ok", limit: 100)
        try E2E.addMock(client, tenant: "P", url: "/scarce", body: "scarce", limit: 25)
        let port = server.port
        let statuses = Locked<[String]>([])
        E2E.runOnThreads(10) { _ in
            do {
                let client = try RawHTTPClient(port: port)
                for _ in 0..<8 {
                    statuses.append("shared \(try client.request("GET", "/shared-limit", headers: E2E.tenantHeader("P")).status)")
                    statuses.append("scarce \(try client.request("GET", "/scarce", headers: E2E.tenantHeader("P")).status)")
                }
            } catch {
                statuses.append("error: \(error)")
            }
        }
        let values = statuses.value
        XCTAssertEqual(values.filter { $0 == "shared 200" }.count, 80)
        XCTAssertEqual(values.filter { $0 == "scarce 200" }.count, 25, "a limit is exact under concurrency")
        XCTAssertEqual(values.filter { $0 == "scarce 404" }.count, 55)
        XCTAssertEqual(values.count, 160)

        try server.restart()
        client = try server.client()

        let mocks = try listed(client, tenant: "P")
        XCTAssertEqual(mocks.map(\.url), ["/shared-limit"])
        XCTAssertEqual(mocks.first?.hits, 80)
        XCTAssertEqual(mocks.first?.remainingLimit, 20)
        for _ in 0..<20 { XCTAssertEqual(try client.request("GET", "/shared-limit", headers: E2E.tenantHeader("P")).status, 200) }
        XCTAssertEqual(try client.request("GET", "/shared-limit", headers: E2E.tenantHeader("P")).status, 404)
    }

    func testRemovalsSurviveARestart() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        var client = try server.client()
        for url in ["/one", "/two", "/three"] { try E2E.addMock(client, tenant: nil, url: url, body: url) }
        for url in ["/p1", "/p2"] { try E2E.addMock(client, tenant: "P", url: url, body: url) }
        let remove = E2E.jsonText(["type": "remove", "pattern": E2E.pattern(url: "/two")])
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", remove).status, 204)
        try E2E.removeAll(client, tenant: "P")

        try server.restart()
        client = try server.client()

        XCTAssertEqual(try listed(client, tenant: nil).map(\.url), ["/one", "/three"])
        XCTAssertEqual(try listed(client, tenant: "P").map(\.url), [])
        XCTAssertEqual(try client.request("GET", "/two").status, 404)
        XCTAssertEqual(try client.request("GET", "/p1", headers: E2E.tenantHeader("P")).status, 404)
        XCTAssertEqual(try client.request("GET", "/three", headers: E2E.tenantHeader("P")).text, "/three")
    }

    // MARK: - Hits written after a later control change (regression tests)

    /// Each round of the test below first sends a large (journaled) request so that the journal
    /// writer is busy when the mock is served: the hit then waits in the writer's queue while the
    /// control change that follows commits. Ordinary clients hit the same window now and then;
    /// this makes it happen in nearly every round.
    private let replaceRounds = 60

    /// A served hit is written to its mock's row later, by the journal writer, addressed by row
    /// id. When the mock is replaced in place before that write, the replacement may get the
    /// very same row id, and the old mock's hit is then charged to it. Each round serves a
    /// `limit: 100` mock and replaces it in the same pipeline; the replacement is listed with
    /// hits 0 and remaining 100, and must be stored that way too.
    func testAHitStillBeingWrittenIsNotChargedToTheMockThatReplacedIt() throws {
        let server = try TestServer { $0.journalBodyLimit = 1 << 20 }
        defer { server.removeFiles() }
        var client = try server.client()
        for round in 0..<replaceRounds {
            let tenant = "replace-\(round)"
            try E2E.addMock(client, tenant: tenant, url: "/a", body: "old", limit: 100)
            let answers = try E2E.pipeline(client, [
                .init(method: "POST", target: "/keep-the-journal-writer-busy", body: [UInt8](repeating: 0x7A, count: 512 * 1024)),
                .init(method: "GET", target: "/a", headers: E2E.tenantHeader(tenant)),
                E2E.control(E2E.updateAction(url: "/a", body: Array("new".utf8), limit: 100), tenant: tenant),
            ])
            XCTAssertEqual(answers.map(\.status), [404, 200, 201])
            XCTAssertEqual(answers.dropFirst().first?.text, "old")
        }
        for round in 0..<replaceRounds {
            let mock = try listed(client, tenant: "replace-\(round)").first
            XCTAssertEqual([mock?.hits, mock?.remainingLimit], [0, 100], "replace-\(round) before the restart")
        }

        try server.restart()
        client = try server.client()

        var charged: [String] = []
        for round in 0..<replaceRounds {
            let mock = try listed(client, tenant: "replace-\(round)").first
            XCTAssertEqual(mock?.body, "new")
            if mock?.hits != 0 || mock?.remainingLimit != 100 {
                charged.append("replace-\(round): hits \(mock?.hits ?? -1), remaining \(mock?.remainingLimit ?? -1)")
            }
        }
        XCTAssertEqual(
            charged.count, 0,
            "\(charged.count) of \(replaceRounds) replacements were charged with the replaced mock's hit, e.g. \(charged.prefix(3))")
    }

    /// The same with `removeAll`: the limit-1 mock's last hit ("delete row N") is written after
    /// `removeAll` has deleted row N and a new mock has been stored as row N again (the highest
    /// row id is reused), so the new mock's row is deleted: it is served from memory until the
    /// restart and lost by it.
    ///
    /// Each round, on one connection: a 16 MB upload (the journal writer spends a while storing
    /// it, holding the write connection), `GET /once` (its hit waits in the writer's queue), then
    /// `removeAll` (waits for the write connection). As soon as the listing shows `/once` served,
    /// a second connection adds a mock for another tenant, which queues for the write connection
    /// behind `removeAll` and ahead of the writer's next batch.
    func testAMockAddedRightAfterRemoveAllSurvivesARestart() throws {
        let server = try TestServer {
            $0.journalBodyLimit = 32 << 20
            $0.threadCount = 4
        }
        defer { server.removeFiles() }
        var control = try server.client()
        let rounds = 20
        for round in 0..<rounds {
            let emptied = "emptied-\(round)"
            try E2E.addMock(control, tenant: emptied, url: "/once", body: "once", limit: 1)
            let shard = try server.client()
            try E2E.sendPipelined(shard, [
                .init(method: "POST", target: "/keep-the-journal-writer-busy", body: [UInt8](repeating: 0x7A, count: 16 << 20)),
                .init(method: "GET", target: "/once", headers: E2E.tenantHeader(emptied)),
                E2E.control(#"{"type":"removeAll"}"#, tenant: emptied),
            ])
            var polls = 0
            while try !E2E.mocks(control, tenant: emptied).isEmpty && polls < 100_000 { polls += 1 }
            XCTAssertLessThan(polls, 100_000, "/once was never served")
            try E2E.addMock(control, tenant: "added-\(round)", url: "/next", body: "next")
            XCTAssertEqual(try (0..<3).map { _ in try shard.readResponse().status }, [404, 200, 204])
            XCTAssertEqual(JSONNumber.int(try control.request("DELETE", "/catbird/api/requests").object["deleted"]), 1)
        }
        for round in 0..<rounds {
            XCTAssertEqual(try listed(control, tenant: "added-\(round)").map(\.url), ["/next"], "added-\(round) before the restart")
            XCTAssertEqual(try control.request("GET", "/next", headers: E2E.tenantHeader("added-\(round)")).text, "next")
        }
        // The tenants listing counts stored rows: every added-N tenant stores its one mock.
        let stored = try E2E.tenants(control).filter { ($0["id"] as? String)?.hasPrefix("added-") == true }
        XCTAssertEqual(stored.count, rounds)
        let missingRows = stored.filter { JSONNumber.int($0["mocks"]) != 1 }.compactMap { $0["id"] as? String }
        XCTAssertEqual(
            missingRows.count, 0,
            "\(missingRows.count) of \(rounds) tenants store no row for the mock they are served from, e.g. \(missingRows.prefix(3))")

        try server.restart()
        control = try server.client()

        var lost: [String] = []
        for round in 0..<rounds where try listed(control, tenant: "added-\(round)").map(\.url) != ["/next"] {
            lost.append("added-\(round)")
        }
        XCTAssertEqual(lost.count, 0, "\(lost.count) of \(rounds) mocks added right after a removeAll were lost by the restart, e.g. \(lost.prefix(3))")
    }
}
