import CatbirdTestSupport
import Foundation
import XCTest

/// try9a F1, F2, F6: a 404 says when a used-up mock matched the request, when the closest
/// `equal` url lacks the request's query or differs in a trailing `/`, and when a mock's method
/// is `ANY` (docs/matching.md#near-misses, ``NearMissHints``, ``UsedUpMock``); `update` warns of
/// an `ANY` method (docs/protocol.md#mocks-that-can-never-match).
final class NearMissSlipHintTests: ServerTestCase {
    private func update(_ tenant: String?, _ json: String) throws -> RawResponse {
        let added = try client.json("POST", "/catbird/api/mocks", json, headers: E2E.tenantHeader(tenant))
        XCTAssertEqual(added.status, 201, added.text)
        return added
    }

    private func mockID(_ tenant: String?, url: String) throws -> Int {
        let mock = try E2E.mocks(client, tenant: tenant).first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == url }
        return try XCTUnwrap(JSONNumber.int(mock?["id"]))
    }

    /// The finding's exact input: tenant m1's `POST /login` mock with a header regexp, a json
    /// body and `limit` 2; the third matching POST got a 404 naming an unrelated mock as the
    /// closest and nothing of the used-up one.
    func testA404AfterAMocksLimitWasUsedUpSaysSo() throws {
        // The unrelated mock the finding's 404 named, in the default tenant.
        _ = try update(nil, #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/api/items/*"}},"response":{"status":200}}"#)
        _ = try update("m1", #"{"type":"update","pattern":{"method":"POST","url":{"kind":"equal","value":"/login"},"headers":{"Authorization":{"kind":"regexp","value":"^Bearer .+"}},"body":{"kind":"json","value":"{\"a\":1,\"b\":[1,2]}"}},"response":{"status":200,"body":"anNvbm9r","limit":2}}"#)
        let id = try mockID("m1", url: "/login")
        let headers = E2E.tenantHeader("m1") + [("Authorization", "Bearer x")]
        for _ in 0..<2 {
            let hit = try client.request("POST", "/login", headers: headers, body: Array(#"{"b":[1,2],"a":1}"#.utf8))
            XCTAssertEqual(hit.status, 200, hit.text)
            XCTAssertEqual(hit.text, "jsonok")
        }
        let third = try client.request("POST", "/login", headers: headers, body: Array(#"{"b":[1,2],"a":1}"#.utf8))
        XCTAssertEqual(third.status, 404, third.text)
        let reason = try XCTUnwrap(third.object["reason"] as? String)
        let prefix = #"no mock matched POST /login in tenant "m1"; mock \#(id) (POST equal "/login") of tenant "m1" matches it but was used up by its limit of 2 at "#
        XCTAssertTrue(reason.hasPrefix(prefix), reason)
        XCTAssertTrue(
            reason.contains(": a mock is removed once its limit is used up; add it again, or raise its limit; the closest is "), reason)
        // A request the used-up mock would not have answered is not told about it.
        let other = try client.request("POST", "/login", headers: headers, body: Array(#"{"a":2}"#.utf8))
        XCTAssertEqual(other.status, 404)
        XCTAssertFalse(other.text.contains("used up"), other.text)
        // Cleared mocks are forgotten with the table.
        let cleared = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: E2E.tenantHeader("m1"))
        XCTAssertEqual(cleared.status, 204, cleared.text)
        let after = try client.request("POST", "/login", headers: headers, body: Array(#"{"b":[1,2],"a":1}"#.utf8))
        XCTAssertEqual(after.status, 404)
        XCTAssertFalse(after.text.contains("used up"), after.text)
    }

    /// The finding's exact input: mock `GET equal "/api/feed"` in tenant hint, request
    /// `/api/feed?page=1&size=20`: the reason said only "url differs".
    func testAMockURLWithoutTheRequestsQueryGetsAHint() throws {
        _ = try update("hint", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/feed"}},"response":{"status":200}}"#)
        let id = try mockID("hint", url: "/api/feed")
        let miss = try client.request("GET", "/api/feed?page=1&size=20", headers: E2E.tenantHeader("hint"))
        XCTAssertEqual(miss.status, 404)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(
            reason.hasSuffix(#"; mock \#(id)'s url "/api/feed" is the request's path without its query "?page=1&size=20": equal compares the whole request-target, query included; write the query in the mock, "/api/feed?page=1&size=20", or the wildcard "/api/feed\\?*""#),
            reason)
        // The wildcard it suggests answers the request.
        _ = try update("hint", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"wildcard","value":"/api/feed\\?*"}},"response":{"status":204}}"#)
        XCTAssertEqual(try client.request("GET", "/api/feed?page=1&size=20", headers: E2E.tenantHeader("hint")).status, 204)
        XCTAssertEqual(try client.request("GET", "/api/feedX", headers: E2E.tenantHeader("hint")).status, 404)
    }

    /// The finding's "likewise": `/api/feed/` against `equal "/api/feed"`, and the other way round.
    func testATrailingSlashGetsAHint() throws {
        _ = try update("hint", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/feed"}},"response":{"status":200}}"#)
        _ = try update("hint", #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/api/users/?all=1"}},"response":{"status":200}}"#)
        let feed = try mockID("hint", url: "/api/feed")
        let users = try mockID("hint", url: "/api/users/?all=1")
        let slash = try XCTUnwrap(try client.request("GET", "/api/feed/", headers: E2E.tenantHeader("hint")).object["reason"] as? String)
        XCTAssertTrue(
            slash.hasSuffix(#"; mock \#(feed)'s url "/api/feed" differs from the request-target only in a trailing '/': equal compares the request-target as sent, so write "/api/feed/""#),
            slash)
        let none = try XCTUnwrap(try client.request("GET", "/api/users?all=1", headers: E2E.tenantHeader("hint")).object["reason"] as? String)
        XCTAssertTrue(none.contains(#"; mock \#(users)'s url "/api/users/?all=1" differs from the request-target only in a trailing '/'"#), none)
        let otherQuery = try XCTUnwrap(try client.request("GET", "/api/users?all=2", headers: E2E.tenantHeader("hint")).object["reason"] as? String)
        XCTAssertFalse(otherQuery.contains("trailing"), otherQuery)
    }

    /// The finding's exact input: `"method":"ANY"` was accepted with a bare 201 and the 404 for
    /// `GET /any` named an unrelated default-tenant mock as the closest, nothing of the method.
    func testAnAnyMethodIsWarnedOfAndPointedAt() throws {
        _ = try update(nil, #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/shared"}},"response":{"status":200}}"#)
        let added = try update("any1", #"{"type":"update","pattern":{"method":"ANY","url":{"kind":"equal","value":"/any"}},"response":{"status":200}}"#)
        let meaning = "is compared exactly with the request's method, as every method is (Catbird 0.11's rule): no usual client sends "
            + "it, and there is no any-method form; add one mock per method (GET, POST, …)"
        XCTAssertEqual(added.object["warnings"] as? [String], [#"'pattern.method' "ANY" "# + meaning], added.text)
        let id = try mockID("any1", url: "/any")
        let miss = try client.request("GET", "/any", headers: E2E.tenantHeader("any1"))
        XCTAssertEqual(miss.status, 404)
        let reason = try XCTUnwrap(miss.object["reason"] as? String)
        XCTAssertTrue(reason.contains(#"; mock \#(id)'s method "ANY" "# + meaning), reason)
        // Still matched exactly (Catbird 0.11): a request whose method is ANY gets it.
        XCTAssertEqual(try client.request("ANY", "/any", headers: E2E.tenantHeader("any1")).status, 200)
        let star = try update("any1", #"{"type":"update","pattern":{"method":"*","url":{"kind":"equal","value":"/star"}},"response":{"status":200}}"#)
        XCTAssertEqual(star.object["warnings"] as? [String], [#"'pattern.method' "*" "# + meaning], star.text)
    }
}
