import CatbirdTestSupport
import Foundation
import XCTest

/// Each journal row holds the header fields of its own request, however requests with
/// different fields interleave on one worker: the worker reuses the header JSON of field lists
/// it met recently (``JSONText/objectReusingRecent(_:)``), which must never hand one request
/// another's.
final class InterleavedHeadersJournalTests: ServerTestCase {
    /// Tenants whose fields differ only in bytes that are not among any value's last 8 and have
    /// the same lengths (`a-shard-00000000`, `b-shard-00000000`, …: the reuse's cheap first
    /// comparison cannot tell them apart), interleaved on one connection, so on one worker:
    /// first 8 tenants (fewer than the lists a worker remembers) for several rounds, then 24
    /// (more than a worker remembers), each with a field name of its own and a value that
    /// changes with the round.
    func testEveryRowHoldsItsOwnRequestsFieldsWhileTenantsInterleave() throws {
        try E2E.addMock(client, url: "/shared", body: "ok")  // the default tenant's: every tenant falls back to it
        let letters = Array("abcdefghijklmnopqrstuvwx")
        func tenant(_ index: Int) -> String { "\(letters[index])-shard-00000000" }
        func fields(tenant index: Int, round: Int) -> [(String, String)] {
            [
                ("X-Catbird-Parallel-Id", tenant(index)),
                ("X-Field-Name-Longer-Than-15-\(letters[index])", "\(letters[index])\(round % 2)-same-tail-12345678"),
                ("Accept", "application/json"),
            ]
        }
        var sent: [String: [[(String, String)]]] = [:]
        for (tenants, rounds) in [(8, 4), (24, 2)] {
            for round in 0..<rounds {
                for index in 0..<tenants {
                    let headers = fields(tenant: index, round: round)
                    XCTAssertEqual(try client.request("GET", "/shared", headers: headers).status, 200)
                    sent[tenant(index), default: []].append(headers)
                }
            }
        }
        for (tenant, requests) in sent {
            let rows = try E2E.sqlRows(client, "SELECT request_headers FROM requests ORDER BY id", tenant: tenant)
            XCTAssertEqual(rows.count, requests.count, "tenant \(tenant): one row per request")
            for (row, headers) in zip(rows, requests) {
                let journaled = try XCTUnwrap(
                    JSONSerialization.jsonObject(with: Data((row[0] as? String ?? "").utf8)) as? [String: String], "\(row)")
                XCTAssertEqual(journaled["Host"], "127.0.0.1")
                for (name, value) in headers {
                    XCTAssertEqual(journaled[name], value, "tenant \(tenant): \(name)")
                }
                XCTAssertEqual(journaled.count, headers.count + 1, "tenant \(tenant): \(journaled)")
            }
        }
    }

    /// The parallel id's field name is journaled as each request spelled it (the server keeps
    /// one shared string for the wire's spelling), and any spelling selects the tenant.
    func testTheParallelIdFieldNameIsJournaledAsSpelled() throws {
        try E2E.addMock(client, url: "/shared", body: "ok")
        for name in ["X-Catbird-Parallel-Id", "x-catbird-parallel-id", "X-CATBIRD-PARALLEL-ID", "X-Catbird-Parallel-Id"] {
            XCTAssertEqual(try client.request("GET", "/shared", headers: [(name, "spelled")]).status, 200)
        }
        let rows = try E2E.sqlRows(client, "SELECT request_headers FROM requests ORDER BY id", tenant: "spelled")
        XCTAssertEqual(rows.map { $0[0] as? String ?? "" }, [
            #"{"Host":"127.0.0.1","X-Catbird-Parallel-Id":"spelled"}"#, #"{"Host":"127.0.0.1","x-catbird-parallel-id":"spelled"}"#,
            #"{"Host":"127.0.0.1","X-CATBIRD-PARALLEL-ID":"spelled"}"#, #"{"Host":"127.0.0.1","X-Catbird-Parallel-Id":"spelled"}"#,
        ])
    }
}
