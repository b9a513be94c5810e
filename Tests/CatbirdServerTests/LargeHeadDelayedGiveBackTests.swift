import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// A delayed mock's hit counted beside a large request head (relaxed durability): the hit is
/// refundable for two reasons, its head check (the request leaves less than 28 KiB for the
/// response's head, docs/protocol.md#response-head-size) and its delay, and is settled or given
/// back once, when its delay ends (docs/protocol.md#delays).
///
/// Regression: the head check settled the hit as soon as the head fitted, and the delay's end
/// settled or refunded it a second time, ending another hit's turn or none. A mock `GET /d` with
/// `delay` and `limit: 1`, asked with `X-Pad: <5000 × a>` by a client that hung up at once, was
/// gone from memory (the next `GET /d` a 404) while its row kept the use; with `limit: 3`, A
/// (large head) answered and then B (small head) hanging up, B's use was never given back
/// (listed `remainingLimit` 1, `hits` 2; the row 2 and 1).
final class LargeHeadDelayedGiveBackTests: XCTestCase {
    /// Long enough for B to be matched and hang up between A's answer and the end of its own
    /// delay on a loaded machine (B is sent half a delay after A).
    private static let delaySeconds = 4
    /// A request field that leaves less than 28 KiB for the response's head (about 27.5 KiB).
    private static let pad = ("X-Pad", String(repeating: "a", count: 5000))

    func testADelayedHitBesideALargeRequestHeadIsSettledOrGivenBackOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "pad1", url: "/d", body: "ok", limit: 1, delay: Self.delaySeconds)
        try E2E.addMock(control, tenant: "pad3", url: "/d", body: "ok", limit: 3, delay: Self.delaySeconds)

        // limit 1: the one use, taken beside a large head by a client that hangs up.
        let gone = try send(tenant: "pad1", padded: true, server)
        // Used up: listed with no use left while its answer waits (tester finding tester50b-F7).
        try waitUntil(control, tenant: "pad1") { JSONNumber.int($0?["remainingLimit"]) == 0 }
        gone.hangUp()

        // limit 3: A (large head) is answered, then B (small head) hangs up before its delay ends.
        let a = try send(tenant: "pad3", padded: true, server)
        try waitUntil(control, tenant: "pad3") { JSONNumber.int($0?["hits"]) == 1 }
        usleep(UInt32(Self.delaySeconds) * 500_000)
        let b = try send(tenant: "pad3", padded: false, server)
        try waitUntil(control, tenant: "pad3") { JSONNumber.int($0?["hits"]) == 2 }
        let answered = try a.readResponse()
        XCTAssertEqual(answered.status, 200, answered.text)
        XCTAssertEqual(answered.text, "ok")
        b.hangUp()

        XCTAssertEqual(try statuses(control, tenant: "pad1", count: 1), [499])
        XCTAssertEqual(try statuses(control, tenant: "pad3", count: 2), [200, 499])
        let expected = [["pad1", "1", "0"], ["pad3", "2", "1"]]  // tenant, remainingLimit, hits
        XCTAssertEqual(try listed(control), expected, "live table")
        XCTAssertEqual(try stored(server.databasePath), expected, "SQLite file")
    }

    /// Sends `GET /d` for the tenant on a connection of its own (with `X-Pad` when `padded`).
    private func send(tenant: String, padded: Bool, _ server: TestServer) throws -> RawHTTPClient {
        let client = try RawHTTPClient(port: server.port, timeoutSeconds: Self.delaySeconds + 20)
        let pad = padded ? "\(Self.pad.0): \(Self.pad.1)\r\n" : ""
        try client.send(raw: Array("GET /d HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: \(tenant)\r\n\(pad)\r\n".utf8))
        return client
    }

    /// Waits up to 10 s until the tenant's (only) mock as listed, or nil for none, passes `check`.
    private func waitUntil(_ control: RawHTTPClient, tenant: String, _ check: ([String: Any]?) -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if check(try E2E.mocks(control, tenant: tenant).first) { return }
            usleep(2000)
        }
        XCTFail("\(tenant): the request was not matched within 10 s: \(try E2E.mocks(control, tenant: tenant))")
    }

    /// The statuses journaled for the tenant once it has `count` entries, sorted.
    private func statuses(_ control: RawHTTPClient, tenant: String, count: Int) throws -> [Int] {
        try E2E.journal(control, tenant: tenant, once: count)
            .compactMap { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) }.sorted()
    }

    /// Each tenant's mock as `GET /catbird/api/mocks` lists it: tenant, remainingLimit, hits.
    private func listed(_ control: RawHTTPClient) throws -> [[String]] {
        try ["pad1", "pad3"].map { tenant in
            let mocks = try E2E.mocks(control, tenant: tenant)
            XCTAssertEqual(mocks.count, 1, "\(tenant): \(mocks)")
            return [tenant] + ["remainingLimit", "hits"].map { "\(JSONNumber.int(mocks.first?[$0]) ?? -1)" }
        }
    }

    /// Each tenant's row in the `mocks` table of the file: tenant, remaining_limit, hits.
    private func stored(_ path: String) throws -> [[String]] {
        let db = try Database(path: path, mode: .readOnly)
        defer { db.close() }
        return try ["pad1", "pad3"].map { tenant in
            let rows = try db.query("SELECT remaining_limit, hits FROM mocks WHERE tenant = ?", [.text(tenant)])
            XCTAssertEqual(rows.count, 1, tenant)
            return [tenant] + [0, 1].map { "\(rows.first?[$0].intValue ?? -1)" }
        }
    }
}
