import CatbirdTestSupport
import Foundation
import XCTest

/// docs/protocol.md#read-your-writes: "a journal query always sees every request whose response was sent before the
/// query arrived". Each round sends a request on one connection and, as soon as its response is
/// read, queries the journal on another connection.
final class ReadYourWritesTests: XCTestCase {
    private let rounds = 200
    private let rywPattern = #"{"method":"GET","url":{"kind":"equal","value":"/ryw"},"headers":{}}"#

    func testCountSeesEveryAnsweredRequest() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let requester = try server.client()
        let reader = try server.client()
        try E2E.addMock(requester, url: "/ryw", body: "ryw")

        var counts: [Int?] = []
        for _ in 0..<rounds {
            XCTAssertEqual(try requester.request("GET", "/ryw").status, 200)
            counts.append(try E2E.count(reader, tenant: nil, patternJSON: rywPattern))
        }
        XCTAssertEqual(counts, (1...rounds).map { $0 })
    }

    func testCountOnTheSameConnectionSeesEveryAnsweredRequestOfATenant() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "shard-7", url: "/ryw", body: "ryw")

        var counts: [Int?] = []
        for _ in 0..<rounds {
            XCTAssertEqual(try client.request("GET", "/ryw", headers: E2E.tenantHeader("shard-7")).status, 200)
            counts.append(try E2E.count(client, tenant: "shard-7", patternJSON: rywPattern))
        }
        XCTAssertEqual(counts, (1...rounds).map { $0 })
        XCTAssertEqual(try E2E.count(client, tenant: nil, patternJSON: rywPattern), 0)
    }

    func testJournalListingSeesEveryAnsweredRequest() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let requester = try server.client()
        let reader = try server.client()
        try E2E.addMock(requester, url: "/ryw", body: "ryw")

        var totals: [Int] = []
        var lastIDs: [Int?] = []
        for _ in 0..<rounds {
            XCTAssertEqual(try requester.request("GET", "/ryw").status, 200)
            let entries = try E2E.journal(reader, tenant: nil, query: "url=/ryw&limit=1000")
            totals.append(entries.count)
            lastIDs.append(JSONNumber.int(entries.last?["id"]))
        }
        XCTAssertEqual(totals, (1...rounds).map { $0 })
        let ids = lastIDs.compactMap { $0 }
        XCTAssertEqual(ids.count, rounds)
        XCTAssertEqual(ids, ids.sorted(), "each round's newest entry is newer than the last round's")
        XCTAssertEqual(Set(ids).count, rounds)
    }

    func testSQLRouteSeesEveryAnsweredRequest() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let requester = try server.client()
        let reader = try server.client()
        try E2E.addMock(requester, tenant: "sql-shard", url: "/ryw", body: "ryw")

        var counts: [Int?] = []
        for _ in 0..<rounds {
            XCTAssertEqual(try requester.request("GET", "/ryw", headers: E2E.tenantHeader("sql-shard")).status, 200)
            let rows = try E2E.sqlRows(
                reader, "SELECT COUNT(*) FROM requests WHERE tenant = ? AND url = ?", params: ["sql-shard", "/ryw"], tenant: "sql-shard")
            counts.append(JSONNumber.int(rows.first?.first))
        }
        XCTAssertEqual(counts, (1...rounds).map { $0 })
    }

    func testUnansweredRequestsAreSeenToo() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let requester = try server.client()
        let reader = try server.client()

        var counts: [Int?] = []
        for _ in 0..<50 {
            XCTAssertEqual(try requester.request("GET", "/ryw").status, 404)
            counts.append(try E2E.count(reader, tenant: nil, patternJSON: rywPattern))
        }
        XCTAssertEqual(counts, (1...50).map { $0 })
    }
}
