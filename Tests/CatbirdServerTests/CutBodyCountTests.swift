import CatbirdTestSupport
import Foundation
import XCTest

/// `count` and `find` match the request body the journal kept (its first
/// `--journal-body-limit` bytes); requests that match all but a body pattern the cut body
/// fails are not counted, and the answer says how many and why (`cutBodyMatches`,
/// `warnings`: docs/protocol.md#count), instead of a silent 0.
final class CutBodyCountTests: ServerTestCase {
    /// Regression (try9a F5): a mock `PUT equal "/up"` with `body contains "NEEDLE"` answered a
    /// 2,666,674-byte upload ending in `NEEDLE` (`curl -T big.txt`), then `count` with the same
    /// pattern answered `{"count":0}` and `find` `{"requests":[],"hasMore":false,…}`, no other
    /// field; only `wait`'s 408 named the cut body.
    func testCountAndFindSayWhichRequestsTheCutBodyLeftOut() throws {
        let pattern = #"{"method":"PUT","url":{"kind":"equal","value":"/up"},"body":{"kind":"contains","value":"NEEDLE"}}"#
        let tenant = E2E.tenantHeader("big")
        let added = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#, headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        let body = Array((String(repeating: "x", count: 2_666_668) + "NEEDLE").utf8)
        XCTAssertEqual(body.count, 2_666_674)
        let upload = try client.request("PUT", "/up", headers: tenant, body: body)
        XCTAssertEqual(upload.status, 200, "the mock saw the whole body")
        // Not marked: its kept body is whole and fails the pattern.
        XCTAssertEqual(try client.request("PUT", "/up", headers: tenant, body: Array("short".utf8)).status, 404)
        // Not marked: another url.
        XCTAssertEqual(try client.request("PUT", "/other", headers: tenant, body: body).status, 404)
        let uploadID = try XCTUnwrap(
            (try client.request("GET", "/catbird/api/requests?limit=1", headers: tenant).object["requests"] as? [[String: Any]])?
                .first?["id"] as? Int)

        let warning = "1 journaled request (#\(uploadID), 65536 of its 2666674 body bytes kept) matches all but the body pattern, "
            + "which was tested on the part of the body the journal kept: raise --journal-body-limit"
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(count.object["count"] as? Int, 0, count.text)
        XCTAssertEqual(count.object["cutBodyMatches"] as? Int, 1, count.text)
        XCTAssertEqual(count.object["warnings"] as? [String], [warning], count.text)

        let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(find.status, 200, find.text)
        XCTAssertEqual((find.object["requests"] as? [Any])?.count, 0, find.text)
        XCTAssertEqual(find.object["hasMore"] as? Bool, false, find.text)
        XCTAssertEqual(find.object["cutBodyMatches"] as? Int, 1, find.text)
        XCTAssertEqual(find.object["warnings"] as? [String], [warning], find.text)

        // A find whose bounds leave the upload out says nothing of it.
        let after = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"since":\#(uploadID)}"#, headers: tenant)
        XCTAssertEqual(after.status, 200, after.text)
        XCTAssertNil(after.object["cutBodyMatches"], after.text)
        XCTAssertNil(after.object["warnings"], after.text)
    }

    /// A body pattern that the kept part already matches counts the request as before, with no
    /// warning; nor does a pattern without a body pattern get one.
    func testARequestTheKeptPartMatchesIsCountedWithoutAWarning() throws {
        let tenant = E2E.tenantHeader("kept")
        let body = Array(("NEEDLE" + String(repeating: "x", count: 100_000)).utf8)
        XCTAssertEqual(try client.request("PUT", "/up", headers: tenant, body: body).status, 404)
        for pattern in [
            #"{"method":"PUT","url":{"kind":"equal","value":"/up"},"body":{"kind":"contains","value":"NEEDLE"}}"#,
            #"{"method":"PUT","url":{"kind":"equal","value":"/up"}}"#,
        ] {
            let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
            XCTAssertEqual(count.text, #"{"count":1}"#, pattern)
        }
    }
}
