import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A delayed mock's `limit` when several waiting clients hang up (README.md, ResponseMock
/// `delay`; docs/protocol.md#delays): each client that hangs up during the delay is let go, its
/// hit given back, so whatever order the hits end in the mock ends with `hits` = answers sent
/// and `remainingLimit` = `limit` − answers sent, a used-up mock comes back, and the row in
/// the SQLite file (what a restart loads) says the same.
///
/// Regression (try5 finding 5, `hang2.py 5 3 2` and `hang1.py 3 3`): once the hits had used the
/// mock up, giving them back restored at most one use (limit 3, three clients gone: back with
/// remainingLimit 1, hits 2), and none while another of its answers was still pending (limit
/// 5, three gone and two answered: the mock never came back, where remainingLimit 3, hits 2 is
/// right).
final class DelayedLimitGiveBackTests: XCTestCase {
    /// One tenant's run: a mock `GET /h*` → "ok" with `limit` = the number of clients and
    /// `delay`; client i sends `GET /h<i>` once the previous one's hit is counted, and the
    /// clients marked true hang up during the delay.
    private struct Run {
        let tenant: String
        let hangsUp: [Bool]
        var limit: Int { hangsUp.count }
        var answered: Int { hangsUp.filter { !$0 }.count }
    }

    private static let runs = [
        Run(tenant: "three-gone-two-answered", hangsUp: [true, true, true, false, false]),  // hang2.py 5 3 2
        Run(tenant: "all-three-gone", hangsUp: [true, true, true]),  // hang1.py 3 3
        Run(tenant: "last-gone", hangsUp: [false, true]),
    ]

    /// Long enough for every run's requests to be matched and hung up on a loaded machine.
    private static let delaySeconds = 4

    func testHitsGivenBackByClientsThatHangUpLeaveLimitMinusAnswered() throws {
        try check(.relaxed)
    }

    func testHitsGivenBackByClientsThatHangUpLeaveLimitMinusAnsweredWithStrictDurability() throws {
        try check(.strict)
    }

    private func check(_ durability: Durability) throws {
        let server = try TestServer { $0.durability = durability }
        defer { server.removeFiles() }
        let control = try server.client()
        var clients: [[RawHTTPClient]] = []
        for run in Self.runs {
            try E2E.addMock(
                control, tenant: run.tenant, url: "/h*", kind: "wildcard", body: "ok", limit: run.limit, delay: Self.delaySeconds)
            clients.append(try send(run, to: server, control: control))
        }
        for (run, runClients) in zip(Self.runs, clients) {
            for (client, hangsUp) in zip(runClients, run.hangsUp) where hangsUp { client.hangUp() }
        }
        for (run, runClients) in zip(Self.runs, clients) {
            for (client, hangsUp) in zip(runClients, run.hangsUp) where !hangsUp {
                let answer = try client.readResponse()
                XCTAssertEqual(answer.status, 200, "\(run.tenant): \(answer.text)")
                XCTAssertEqual(answer.text, "ok", run.tenant)
            }
            // In the order journaled: a client that hung up at once, an answer when the delay ended.
            let statuses = try E2E.journal(control, tenant: run.tenant, once: run.limit)
                .compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }
            XCTAssertEqual(statuses.sorted(), run.hangsUp.map { $0 ? 499 : 200 }.sorted(), run.tenant)
        }

        let expected = Self.runs.map { [$0.tenant, "\($0.limit - $0.answered)", "\($0.answered)"] }
        XCTAssertEqual(try listed(control), expected, "live table (\(durability))")
        XCTAssertEqual(try stored(server.databasePath), expected, "SQLite file (\(durability))")
        try server.restart()
        XCTAssertEqual(try listed(try server.client()), expected, "after a restart (\(durability))")
    }

    /// Sends the run's requests on one connection each, the next once the previous one's hit
    /// is counted (so hit i is client i's), and returns the connections.
    private func send(_ run: Run, to server: TestServer, control: RawHTTPClient) throws -> [RawHTTPClient] {
        try (0..<run.limit).map { index in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: Self.delaySeconds + 20)
            try client.send(raw: Array("GET /h\(index) HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: \(run.tenant)\r\n\r\n".utf8))
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                let mock = try E2E.mocks(control, tenant: run.tenant).first
                // The last use too: a used-up mock is listed while its answer waits (tester50b-F7).
                if JSONNumber.int(mock?["hits"]) == index + 1 { return client }
                usleep(2000)
            }
            XCTFail("\(run.tenant): request \(index) was not matched within 10 s")
            return client
        }
    }

    /// Each run's mock as `GET /catbird/api/mocks` lists it: tenant, remainingLimit, hits.
    private func listed(_ client: RawHTTPClient) throws -> [[String]] {
        try Self.runs.map { run in
            let mocks = try E2E.mocks(client, tenant: run.tenant)
            XCTAssertEqual(mocks.count, 1, "\(run.tenant): \(mocks)")
            return [run.tenant] + ["remainingLimit", "hits"].map { "\(JSONNumber.int(mocks.first?[$0]) ?? -1)" }
        }
    }

    /// Each run's row in the `mocks` table of the file: tenant, remaining_limit, hits.
    private func stored(_ path: String) throws -> [[String]] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return try Self.runs.map { run in
            let rows = try db.query("SELECT remaining_limit, hits FROM mocks WHERE tenant = ?", [.text(run.tenant)])
            XCTAssertEqual(rows.count, 1, run.tenant)
            return [run.tenant] + [0, 1].map { "\(rows.first?[$0].intValue ?? -1)" }
        }
    }
}
