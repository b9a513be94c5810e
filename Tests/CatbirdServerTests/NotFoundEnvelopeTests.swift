import CatbirdTestSupport
@_spi(Server) import CatbirdWire
import Foundation
import XCTest

/// The 404 of a request nothing answered is written by hand into one buffer
/// (`NotFoundAnswer`), and its journal row keeps only where its `nearMisses` array is in the
/// body (docs/schema.md, `near_misses_offset`, `near_misses_length`): read over a real socket,
/// the body is ``CatbirdNotFoundBody``'s wire shape (keys sorted, `matchingTenants` before
/// `nearMisses`), and the place the row keeps holds exactly that array.
final class NotFoundEnvelopeTests: ServerTestCase {
    func testThe404DecodesAsTheNotFoundBodyAndItsRowPointsAtItsNearMisses() throws {
        try E2E.addMock(client, url: "/api/users", body: "users")
        try E2E.addMock(client, method: "POST", url: "/api/us\u{E9}rs", headerPatterns: ["X-Token": ("equal", "a\"b")], body: "created")
        try E2E.addMock(client, tenant: "shard-1", url: "/api/us*", kind: "wildcard", body: "shard")

        let miss = try client.request("GET", "/api/usérs")
        XCTAssertEqual(miss.status, 404, miss.text)
        let body = try JSONDecoder().decode(CatbirdNotFoundBody.self, from: Data(miss.body))
        XCTAssertTrue(body.error)
        XCTAssertEqual(body.tenant, "")
        XCTAssertEqual(body.matchingTenants, ["shard-1"], "shard-1's wildcard matches the request")
        XCTAssertEqual(body.nearMisses.map(\.pattern.url.value), ["/api/users", "/api/us\u{E9}rs"], "the default tenant's, closest first")
        XCTAssertEqual(body.nearMisses.last?.fields.map(\.verdict), [.differs, .match, .missing])
        XCTAssertTrue(body.reason.hasPrefix("no mock matched GET /api/usérs in the default tenant"), body.reason)
        let keys = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(miss.body)) as? [String: Any]).keys
        XCTAssertEqual(keys.sorted(), ["error", "matchingTenants", "nearMisses", "reason", "tenant"])
        XCTAssertTrue(miss.text.hasPrefix(#"{"error":true,"matchingTenants":["shard-1"],"nearMisses":[{"distance":"#), miss.text)

        // The row's place: 1-based offset and length in bytes of the array in the body sent.
        let rows = try E2E.sqlRows(
            client, "SELECT near_misses_offset, near_misses_length, near_misses FROM requests WHERE near_misses IS NOT NULL")
        XCTAssertEqual(rows.count, 1)
        let offset = try XCTUnwrap(JSONNumber.int(rows.first?[0]))
        let length = try XCTUnwrap(JSONNumber.int(rows.first?[1]))
        let placed = Array(miss.body[(offset - 1)..<(offset - 1 + length)])
        let marker = Array(#""nearMisses":"#.utf8)
        XCTAssertEqual(Array(miss.body[(offset - 1 - marker.count)..<(offset - 1)]), marker)
        XCTAssertEqual(Array(miss.body[(offset - 1 + length)...].prefix(10)), Array(#","reason":"#.utf8))
        XCTAssertEqual(try JSONDecoder().decode([CatbirdNearMiss].self, from: Data(placed)), body.nearMisses)
        XCTAssertEqual(rows.first?[2] as? String, String(decoding: placed, as: UTF8.self), "near_misses reads that place")
    }
}
