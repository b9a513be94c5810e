import CatbirdTestSupport
import Foundation
import XCTest

/// `count` and `find` match the request body the journal kept (its first
/// `--journal-body-limit` bytes); requests that match all but a body pattern the cut body
/// fails, or does not decide (any kind but a `contains` found in the kept part), are not
/// counted, and the answer says how many and why (`cutBodyMatches`, `warnings`:
/// docs/protocol.md#count), instead of a silent 0 or a count of a body that may not match.
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
        let uploadID = try newestID(tenant)
        try assertOneLeftOut(pattern, tenant: tenant, id: uploadID, size: 2_666_674)

        // A find whose bounds leave the upload out says nothing of it.
        let after = try client.json(
            "POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern),"since":\#(uploadID)}"#, headers: tenant)
        XCTAssertEqual(after.status, 200, after.text)
        XCTAssertNil(after.object["cutBodyMatches"], after.text)
        XCTAssertNil(after.object["warnings"], after.text)
    }

    /// Regression (tester finding tester62b-F1, its requests): a request refused with 413 past
    /// `--max-body-size` (its body never taken; no mock answered it) was counted in
    /// `cutBodyMatches`, with advice to raise `--journal-body-limit`, and a wait's 408 marked it
    /// so. It is neither now; a body the server took and the journal cut still is.
    func testARequestRefusedFor413IsNoCutBodyMatch() throws {
        let server = try TestServer { $0.maxBodySize = 1024; $0.journalBodyLimit = 100 }
        defer { server.removeFiles() }
        let control = try server.client()
        let tenant = E2E.tenantHeader("sm")
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/m"},"body":{"kind":"contains","value":"zzz"}}"#
        XCTAssertEqual(
            try control.json("POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#, headers: tenant).status, 201)
        let refused = try control.request("POST", "/m", headers: tenant, body: Array((String(repeating: "a", count: 2000) + "zzz").utf8))
        XCTAssertEqual(refused.status, 413, refused.text)
        let client = try server.client()  // the 413 closed the connection
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 0, count.text)
        XCTAssertNil(count.object["cutBodyMatches"], count.text)
        // Said as refused instead (tester63a-F4: after the fix above a count said nothing at all).
        let refusedID = JSONNumber.int(try E2E.journal(client, tenant: "sm").last?["id"]) ?? -1
        let said = "1 journaled request (#\(refusedID), 2003 body bytes) matches all but the body pattern, and the server refused its "
            + "body before taking it (413 past --max-body-size, or 503 past the buffered bodies' budget): the app got that answer, not a mock's"
        XCTAssertEqual(count.object["warnings"] as? [String], [said], count.text)
        let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(find.object["warnings"] as? [String], [said], find.text)
        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0}"#, headers: tenant)
        E2E.assertError(wait, status: 408, reasonContains: "POST /m → 413")
        XCTAssertFalse(wait.text.contains("matches but for the body"), wait.text)
        // A body the server took, which the journal cut: still said.
        XCTAssertEqual(try client.request("POST", "/m", headers: tenant, body: Array((String(repeating: "b", count: 500) + "zzz").utf8)).status, 200)
        let cut = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(JSONNumber.int(cut.object["cutBodyMatches"]), 1, cut.text)
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

    /// Regression (tester18b F4), the exact input: a mock `POST equal "/cut"` with body `regexp
    /// "^a+$"` does not answer a body of 70,000 `a`s and a `b` (404), yet `count` with the same
    /// pattern answered `{"count":1}` (find returned the entry, wait returned it at once): the
    /// journal kept the first 65,536 bytes, all `a`s. On a cut body only a `contains` found in
    /// the kept part is a sure match; any other kind is undecided there, so the entry is left
    /// out and named by `cutBodyMatches`. The rest of the kind: an `equal` of the kept bytes, and
    /// a `json` the kept part is (`{"a":1}` and spaces) while the whole body (a trailing `x`) is
    /// not JSON.
    func testACutBodyWhoseKeptPartMatchesAnAnchoredPatternIsNotCounted() throws {
        let tenant = E2E.tenantHeader("CUT")
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/cut"},"body":{"kind":"regexp","value":"^a+$"}}"#
        let added = try client.json(
            "POST", "/catbird/api/mocks", #"{"type":"update","pattern":\#(pattern),"response":{"status":200}}"#, headers: tenant)
        XCTAssertEqual(added.status, 201, added.text)
        let body = Array((String(repeating: "a", count: 70_000) + "b").utf8)
        XCTAssertEqual(try client.request("POST", "/cut", headers: tenant, body: body).status, 404, "the whole body ends in b")
        try assertOneLeftOut(pattern, tenant: tenant, id: try newestID(tenant), size: 70_001)

        let wait = try client.json("POST", "/catbird/api/requests/wait", #"{"pattern":\#(pattern),"timeout":0}"#, headers: tenant)
        E2E.assertError(wait, status: 408, reasonContains: "POST /cut → 404 (matches but for the body, which was tested on the 65536 of its 70001 bytes")

        let kept = String(repeating: "a", count: 65_536)
        let equal = #"{"method":"POST","url":{"kind":"equal","value":"/cut"},"body":{"kind":"equal","value":"\#(kept)"}}"#
        XCTAssertEqual(
            try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(equal)}"#, headers: tenant).object["count"] as? Int, 0)

        let jsonBody = Array((#"{"a":1}"# + String(repeating: " ", count: 70_000) + "x").utf8)
        XCTAssertEqual(try client.request("POST", "/json", headers: tenant, body: jsonBody).status, 404)
        let json = #"{"method":"POST","url":{"kind":"equal","value":"/json"},"body":{"kind":"json","value":"{\"a\":1}"}}"#
        let jsonCount = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(json)}"#, headers: tenant)
        XCTAssertEqual(jsonCount.object["count"] as? Int, 0, jsonCount.text)
        XCTAssertEqual(jsonCount.object["cutBodyMatches"] as? Int, 1, jsonCount.text)

        // A contains found in the kept part is still a sure match, with no warning.
        let contains = #"{"method":"POST","url":{"kind":"equal","value":"/cut"},"body":{"kind":"contains","value":"aaa"}}"#
        XCTAssertEqual(
            try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(contains)}"#, headers: tenant).text, #"{"count":1}"#)
    }

    /// Regression (tester18b F4): with `--journal-body-limit 0`, a body `equal ""` counted every
    /// request to the url, whatever its body (each kept as no bytes). Now only the request sent
    /// with no body is counted; the others are undecided and named.
    func testWithNoBodyKeptAnEqualEmptyBodyCountsOnlyEmptyBodies() throws {
        let test = try TestServer { $0.journalBodyLimit = 0 }
        defer { test.removeFiles() }
        let client = try test.client()
        XCTAssertEqual(try client.request("POST", "/e", body: Array("full".utf8)).status, 404)
        XCTAssertEqual(try client.request("POST", "/e", body: []).status, 404)
        let pattern = #"{"method":"POST","url":{"kind":"equal","value":"/e"},"body":{"kind":"equal","value":""}}"#
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#)
        XCTAssertEqual(count.status, 200, count.text)
        XCTAssertEqual(count.object["count"] as? Int, 1, count.text)
        XCTAssertEqual(count.object["cutBodyMatches"] as? Int, 1, count.text)
    }

    /// The id of the tenant's newest journal entry.
    private func newestID(_ tenant: [(String, String)]) throws -> Int {
        try XCTUnwrap(
            (try client.request("GET", "/catbird/api/requests?limit=1", headers: tenant).object["requests"] as? [[String: Any]])?
                .first?["id"] as? Int)
    }

    /// Asserts that `count` and `find` with `pattern` leave out one entry, `id`, kept cut to
    /// 65,536 of its `size` body bytes, and say so (`cutBodyMatches`, the warning naming it).
    private func assertOneLeftOut(
        _ pattern: String, tenant: [(String, String)], id: Int, size: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let warning = "1 journaled request (#\(id), 65536 of its \(size) body bytes kept) matches all but the body pattern, "
            + "which was tested on the part of the body the journal kept: raise --journal-body-limit (a body its client did not finish, "
                + "its entry's problem says so, has no more)"
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(count.status, 200, count.text, file: file, line: line)
        XCTAssertEqual(count.object["count"] as? Int, 0, count.text, file: file, line: line)
        XCTAssertEqual(count.object["cutBodyMatches"] as? Int, 1, count.text, file: file, line: line)
        XCTAssertEqual(count.object["warnings"] as? [String], [warning], count.text, file: file, line: line)

        let find = try client.json("POST", "/catbird/api/requests/find", #"{"pattern":\#(pattern)}"#, headers: tenant)
        XCTAssertEqual(find.status, 200, find.text, file: file, line: line)
        XCTAssertEqual((find.object["requests"] as? [Any])?.count, 0, find.text, file: file, line: line)
        XCTAssertEqual(find.object["hasMore"] as? Bool, false, find.text, file: file, line: line)
        XCTAssertEqual(find.object["cutBodyMatches"] as? Int, 1, find.text, file: file, line: line)
        XCTAssertEqual(find.object["warnings"] as? [String], [warning], find.text, file: file, line: line)
    }
}
