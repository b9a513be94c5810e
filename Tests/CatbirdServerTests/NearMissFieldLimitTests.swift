import CatbirdTestSupport
import Foundation
import XCTest

/// Near misses of mocks with hundreds of header patterns (try7b F8, docs/matching.md#near-misses):
/// each near miss lists at most 20 fields (those that did not match first) and counts the rest
/// in `omittedFields`, its `pattern` holds only the headers listed, the reason names at most
/// those fields, and the near misses stop at 64 KiB. Before, each such 404 was the whole of
/// every pattern and field (0.5 to 1.2 MB) and took up to a second of a shared worker.
final class NearMissFieldLimitTests: ServerTestCase {
    /// The tester's shape: url wildcard `/e<i>*`, header patterns `H0…H<n-1>` wildcard `*a*a*a*a*a*a*a*a*b`.
    private func addMocks(tenant: String, count: Int, headers: Int, url: (Int) -> [String: String]) throws {
        for index in 0..<count {
            let patterns = (0..<headers).map { #""H\#($0)":{"kind":"wildcard","value":"*a*a*a*a*a*a*a*a*b"}"# }.joined(separator: ",")
            let urlJSON = E2E.jsonText(url(index))
            let action = #"{"type":"update","pattern":{"method":"GET","url":\#(urlJSON),"headers":{\#(patterns)}},"response":{"status":200}}"#
            let answer = try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(answer.status, 201, answer.text)
        }
    }

    func testMocksWithManyHeaderPatternsGetNearMissesOfAtMost20FieldsAndABoundedBody() throws {
        // Distinct urls (an `update` of the same pattern replaces the mock): `/e1*` matches the target.
        try addMocks(tenant: "evil", count: 5, headers: 400) { ["kind": "wildcard", "value": "/e\($0)*"] }
        try addMocks(tenant: "evil2", count: 5, headers: 400) { ["kind": "equal", "value": "/zz\($0)"] }
        // H0…H99 present (30 a's: each differs, no b), H100…H399 missing.
        let sent = (0..<100).map { ("H\($0)", String(repeating: "a", count: 30)) }
        for (tenant, target) in [("evil", "/e1"), ("evil2", "/e1")] {
            let miss = try client.request("GET", target, headers: E2E.tenantHeader(tenant) + sent)
            XCTAssertEqual(miss.status, 404, tenant)
            // Three near misses of 20 fields and an 18-header pattern each: about 8 KB (1.2 MB before).
            XCTAssertLessThan(miss.body.count, 16 * 1024, "\(tenant): \(miss.body.count) bytes")
            let nearMisses = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]], tenant)
            XCTAssertEqual(nearMisses.count, 3, tenant)
            for nearMiss in nearMisses {
                let fields = try XCTUnwrap(nearMiss["fields"] as? [[String: Any]])
                XCTAssertEqual(fields.count, 20, tenant)
                XCTAssertEqual(fields.prefix(2).map { $0["field"] as? String }, ["method", "url"])
                XCTAssertEqual(JSONNumber.int(nearMiss["omittedFields"]), 400 - 18, tenant)
                let headers = try XCTUnwrap((nearMiss["pattern"] as? [String: Any])?["headers"] as? [String: Any])
                XCTAssertEqual(Set(headers.keys), Set(fields.dropFirst(2).compactMap { $0["name"] as? String }), tenant)
                XCTAssertTrue(fields.dropFirst(2).allSatisfy { $0["verdict"] as? String != "match" }, tenant)
            }
            let reason = miss.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.hasSuffix("; 382 more fields not listed"), reason)
            XCTAssertLessThan(reason.utf8.count, 4096, reason)
        }
        // The journal keeps the same near misses.
        let journal = try client.request("GET", "/catbird/api/requests/unmatched", headers: E2E.tenantHeader("evil"))
        XCTAssertEqual(journal.status, 200, journal.text)
        XCTAssertTrue(journal.text.contains(#""omittedFields":382"#), journal.text.prefix(500).description)
    }

    /// Fewer than 18 fields differ: those are listed, then matching ones in the pattern's order
    /// up to 20 fields; a mock of 18 header patterns or fewer is listed whole, as before.
    func testTheDifferingFieldsAreListedFirstThenMatchingOnes() throws {
        let patterns = (0..<30).map { #""X\#($0)":{"kind":"equal","value":"v"}"# }.joined(separator: ",")
        let action = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/m"},"headers":{\#(patterns)}},"response":{"status":200}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", action, headers: E2E.tenantHeader("t")).status, 201)
        let small = #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/s"},"headers":{"A":{"kind":"equal","value":"v"}}},"response":{"status":200}}"#
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", small, headers: E2E.tenantHeader("t")).status, 201)
        let sent = (0..<30).map { ("X\($0)", $0 == 25 ? "w" : "v") }
        let miss = try client.request("GET", "/m", headers: E2E.tenantHeader("t") + sent + [("A", "w")])
        XCTAssertEqual(miss.status, 404)
        let nearMisses = try XCTUnwrap(miss.object["nearMisses"] as? [[String: Any]])
        let closest = try XCTUnwrap(nearMisses.first)
        let fields = try XCTUnwrap(closest["fields"] as? [[String: Any]])
        XCTAssertEqual(fields.count, 20)
        XCTAssertEqual(JSONNumber.int(closest["omittedFields"]), 12)
        let headerFields = fields.dropFirst(2)
        XCTAssertEqual(headerFields.filter { $0["verdict"] as? String == "differs" }.compactMap { $0["name"] as? String }, ["X25"])
        XCTAssertEqual(headerFields.filter { $0["verdict"] as? String == "match" }.count, 17)
        let reason = miss.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains(#"header X25 differs (expected equal "v", got "w"); 12 more fields not listed"#), reason)
        let other = try XCTUnwrap(nearMisses.first { ($0["pattern"] as? [String: Any]).flatMap { ($0["url"] as? [String: Any])?["value"] as? String } == "/s" })
        XCTAssertNil(other["omittedFields"])
        XCTAssertEqual((other["fields"] as? [[String: Any]])?.count, 3)
    }
}
