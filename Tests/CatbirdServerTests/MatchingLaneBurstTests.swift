import CatbirdDomain
import CatbirdTestSupport
import Foundation
import XCTest

/// try8a F9: after one `update` of a large default-tenant table, a burst of plain misses from a
/// shard each waited for the first to build the near-miss catalogs, each holding one of the
/// tenant's 32 places on the matching lane: the 33rd and later got 429 with advice about
/// regular expressions, though there were none. Such a miss now gets its 404 on the worker when
/// the lane is full (without near misses while the catalogs are still to be built), and a 429's
/// reason names what this request was queued for (docs/tenancy.md#slow-regular-expressions).
final class MatchingLaneBurstTests: XCTestCase {
    /// The finding's shape: 1,500 default mocks `GET equal /fixture/<i>`, one replaced, then 45
    /// concurrent `GET /img/thumb/<i>.jpg` of `shard-1` (13 of them were 429 before).
    func testABurstOfMissesAfterALargeTablesChangeIsAnswered404() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for start in stride(from: 0, to: 1500, by: 500) {
            let updates = (start..<start + 500).map { E2E.control(E2E.updateAction(url: "/fixture/\($0)", body: Array("ok".utf8)), tenant: nil) }
            XCTAssertEqual(Set(try E2E.pipeline(client, updates).map(\.status)), [201])
        }
        XCTAssertGreaterThan(1500, MockStore.nearMissCatalogWorkerLimit, "a table whose catalog is built on the lane")
        try E2E.addMock(client, url: "/fixture/7", body: "replaced")

        let burst = SlowMatchingLaneTests.inFlight(45, port: server.port) { client in
            try client.request("GET", "/img/thumb/\(Int.random(in: 0..<1000)).jpg", headers: E2E.tenantHeader("shard-1"))
        }.wait()
        XCTAssertEqual(burst.count, 45)
        for answer in burst {
            E2E.assertError(answer, status: 404, reasonContains: "no mock matched GET /img/thumb/")
            let reason = answer.object["reason"] as? String ?? ""
            if reason.contains("its near misses were not searched") {
                XCTAssertTrue(
                    reason.contains(#"in tenant "shard-1"; its near misses were not searched: the near-miss catalogs of 1500 mocks (of tables changed since their last 404) are still to be built, on the matching lane, where this tenant already has 32 requests running or waiting (docs/matching.md#near-misses); a later miss gets them"#),
                    reason)
                XCTAssertEqual((answer.object["nearMisses"] as? [Any])?.count, 0)
            } else {
                XCTAssertTrue(reason.contains("; the closest is mock "), reason)
            }
        }
        let samples = try E2E.metrics(client)
        XCTAssertEqual(samples["catbird_slow_matching_refused_total"], 0, "no miss refused")
        let statuses = try E2E.sqlRows(client, "SELECT status, count(*) FROM requests GROUP BY status", tenant: "shard-1")
        XCTAssertEqual(statuses.map { [JSONNumber.int($0[0]), JSONNumber.int($0[1])] }, [[404, 45]])
        // The catalogs were built: the next miss names its closest mock.
        let next = try client.request("GET", "/fixture/7x", headers: E2E.tenantHeader("shard-1"))
        XCTAssertTrue((next.object["reason"] as? String ?? "").contains(#"(GET equal "/fixture/7")"#), next.text)
    }

    /// M2's family: a body over 64 KiB that a body pattern must read goes to the body lane; when
    /// that is full, the 429 says that, not that regular expressions are slow. 60 at once of
    /// `POST /upload` with 70,001 bytes against a body regexp that outlasts the body lane's
    /// slice and then runs out of its budget on the matching lane (each takes about 100 ms
    /// there, one at a time): more than 32 wait on one lane or the other.
    func testALargeBodysRefusalNamesItsBody() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let mock = E2E.jsonText([
            "type": "update",
            "pattern": [
                "method": "POST", "url": ["kind": "equal", "value": "/upload"], "headers": [String: Any](),
                "body": ["kind": "regexp", "value": "(a|aa)+$"],
            ],
            "response": ["status": 200],
        ])
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock, headers: E2E.tenantHeader("uploads")).status, 201)
        let body = Array(String(repeating: "a", count: 70_000).utf8) + [UInt8(ascii: "!")]
        let answers = SlowMatchingLaneTests.inFlight(60, port: server.port) { client in
            try client.request("POST", "/upload", headers: E2E.tenantHeader("uploads"), body: body)
        }.wait()
        let refused = answers.filter { $0.status == 429 }
        XCTAssertGreaterThan(refused.count, 0, "60 at once is more than the 32 a tenant may have on the body lane or the matching lane")
        // Refused on the body lane for the body, or, read there, on the matching lane for the
        // expression that outlasted the body lane's slice (try9b F10): each says which.
        let bodyLaneReason = "this request was not matched: its body of 70001 bytes is over the 64 KiB a worker reads for body "
            + "patterns (a mock whose method, url and headers match it has one), so it is matched on the body lane, where this "
            + "tenant already has 32 requests running or waiting (one at a time per tenant; docs/tenancy.md#large-bodies); send "
            + "fewer such requests at once"
        let matchingLaneReason = "this request was not matched: its mocks' regular expressions take more than 1 ms (one ran past "
            + "a worker's slice, or was found slow before), so it is matched on the matching lane, where this tenant "
            + "already has 32 requests running or waiting"
        for answer in refused {
            let reason = answer.object["reason"] as? String ?? ""
            E2E.assertError(answer, status: 429, reasonContains: reason.contains("body lane") ? bodyLaneReason : matchingLaneReason)
        }
        let samples = try E2E.metrics(client)
        XCTAssertEqual(
            (samples["catbird_body_lane_refused_total"] ?? 0) + (samples["catbird_slow_matching_refused_total"] ?? 0),
            Double(refused.count), "every 429 counted by its lane")
        for answer in answers where answer.status != 429 {
            E2E.assertError(answer, status: 404, reasonContains: "ran out of the 100 ms evaluation budget")
        }
    }
}
