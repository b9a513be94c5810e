import CatbirdTestSupport
import Foundation
import XCTest

/// A control route refuses a query parameter it does not understand with 400 before doing
/// anything: a delete must never do more than it was asked (docs/protocol.md#query-parameters).
final class ControlQueryParameterTests: ServerTestCase {
    /// `DELETE /catbird/api/requests?tenant=all` ignored the parameter and deleted the caller's
    /// whole journal.
    func testDeleteRequestsWithAnUnknownParameterDeletesNothing() throws {
        XCTAssertEqual(try client.request("GET", "/a").status, 404)
        XCTAssertEqual(try client.request("GET", "/b").status, 404)
        for target in ["/catbird/api/requests?tenant=all", "/catbird/api/requests?since=1", "/catbird/api/requests?id=1"] {
            let answer = try client.request("DELETE", target)
            E2E.assertError(answer, status: 400)
            XCTAssertTrue(answer.text.contains("unknown query parameter"), answer.text)
        }
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 2, "nothing was deleted")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/requests").object["deleted"] as? Int, 2)
    }

    func testOtherControlRoutesRefuseUnknownParameters() throws {
        try E2E.addMock(client, url: "/kept", body: "kept")
        let refused: [(String, String)] = [
            ("DELETE", "/catbird/api/mocks?tenant=shard-1"),
            ("GET", "/catbird/api/mocks?verbose=1"),
            ("DELETE", "/catbird/api/tenants?only=shard-1"),
            ("DELETE", "/catbird/api/tenants/shard-1?force"),
            ("GET", "/catbird/api/tenants?all=1"),
            ("GET", "/catbird/api/info?x=1"),
            ("GET", "/catbird/api/requests/1?body=true"),
            ("GET", "/catbird/api/requests/1?limit=1"),
        ]
        for (method, target) in refused {
            let answer = try client.request(method, target)
            E2E.assertError(answer, status: 400)
            XCTAssertTrue(answer.text.contains("unknown query parameter"), "\(method) \(target): \(answer.text)")
        }
        // Tester finding tester23b-F4: `limit` belongs to an entry's body download, and the
        // refusal says so (protocol.md read as if an entry took it).
        E2E.assertError(
            try client.request("GET", "/catbird/api/requests/1?limit=1"), status: 400,
            reasonContains: #"unknown query parameter "limit" (known: bodies; 'limit' is taken by …/1/request/body and …/1/response/body)"#)
        // Tester finding tester28a-F2: a body download's 400 for an unknown parameter listed
        // `bodies, limit`, and `bodies` then got "unknown query parameter "bodies" (known: limit)".
        for side in ["request", "response"] {
            E2E.assertError(
                try client.request("GET", "/catbird/api/requests/1/\(side)/body?foo=1"), status: 400,
                reasonContains: #"unknown query parameter "foo" (known: bodies for …/{id}, limit for …/{id}/request/body and …/{id}/response/body)"#)
            E2E.assertError(
                try client.request("GET", "/catbird/api/requests/1/\(side)/body?bodies=false"), status: 400,
                reasonContains: #"unknown query parameter "bodies" (known: limit; 'bodies' is taken by the entry, …/{id})"#)
        }
        let post = try client.json("POST", "/catbird/api/mocks?type=removeAll", #"{"type":"removeAll"}"#)
        E2E.assertError(post, status: 400, reasonContains: "unknown query parameter \"type\" (this route takes none)")
        XCTAssertEqual(try E2E.mocks(client, tenant: nil).count, 1, "the mock is still there")
        XCTAssertEqual(try client.request("GET", "/kept").text, "kept")
        XCTAssertEqual(try client.request("GET", "/other").status, 404)
        // Parameters a route does understand still work: the newest entry only.
        let newest = try E2E.journal(client, tenant: nil, query: "limit=1&order=newest")
        XCTAssertEqual(newest.map { $0["url"] as? String }, ["/other"], "\(newest)")
        // The web page reads its own parameters (the page, not an error).
        let page = try client.request("GET", "/catbird?tenant=shard-1")
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.header("Content-Type")?.hasPrefix("text/html") ?? false, "\(page.header("Content-Type") ?? "none")")
    }

    /// Regression (try7a F6): `GET /catbird/api/health?x=1`, `/catbird/metrics?name=x` and
    /// `/catbird/version?x` were 400 `unknown query parameter`, so a monitor adding a
    /// cache-buster or a scrape `params:` entry marked a healthy node down. The read-only
    /// probes ignore their query; `info` (an API route) still refuses one.
    func testTheProbesIgnoreTheirQuery() throws {
        let health = try client.request("GET", "/catbird/api/health?x=1")
        XCTAssertEqual(health.status, 200, health.text)
        XCTAssertEqual(health.object["status"] as? String, "ok", health.text)
        let metrics = try client.request("GET", "/catbird/metrics?name=x")
        XCTAssertEqual(metrics.status, 200, metrics.text)
        XCTAssertTrue(metrics.text.contains("catbird_build_info"), metrics.text)
        let version = try client.request("GET", "/catbird/version?x")
        XCTAssertEqual(version.status, 200, version.text)
        XCTAssertTrue(version.text.hasPrefix("Version: "), version.text)
        E2E.assertError(try client.request("GET", "/catbird/api/info?x=1"), status: 400, reasonContains: #"unknown query parameter "x""#)
    }

    /// The journal's `url` filter looks for the percent-decoded filter value in the url as received
    /// (README.md, docs/protocol.md#journal): after `/a%20b?q=x+y&r=1%2B2`, `?url=a%20b` looks for
    /// `a b` and finds nothing, `?url=a%2520b` finds it, `?url=x%2By` finds the `+` kept as sent.
    func testTheURLFilterIsDecodedOnceAndTheURLNever() throws {
        XCTAssertEqual(try client.request("GET", "/a%20b?q=x+y&r=1%2B2").status, 404)
        func found(_ filter: String) throws -> [String] {
            let answer = try client.request("GET", "/catbird/api/requests?url=\(filter)")
            XCTAssertEqual(answer.status, 200, answer.text)
            return (answer.object["requests"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        }
        XCTAssertEqual(try found("a%20b"), [])
        XCTAssertEqual(try found("a+b"), [], "+ is a space too")
        XCTAssertEqual(try found("a%2520b"), ["/a%20b?q=x+y&r=1%2B2"])
        XCTAssertEqual(try found("x%2By"), ["/a%20b?q=x+y&r=1%2B2"])
        XCTAssertEqual(try found("1%252B2"), ["/a%20b?q=x+y&r=1%2B2"])
    }

    /// Regressions: `?limit=1&limit=2` was accepted (the last won), `?status=99` was a filter,
    /// and `%FF`/`%ZZ` in a tenant id or a query fell back to the literal text; the HAR export
    /// still accepted repeated and misencoded parameters (it checked only their names).
    func testRepeatedOutOfRangeAndMisencodedParametersAreRefused() throws {
        let shard = [("X-Catbird-Parallel-Id", "%ZZ")]
        try E2E.addMock(client, tenant: "%ZZ", url: "/kept", body: "kept")
        // The default tenant's journal, for the filters below: one 200, one 404.
        try E2E.addMock(client, url: "/here", body: "here")
        XCTAssertEqual(try client.request("GET", "/here").status, 200)
        XCTAssertEqual(try client.request("GET", "/missing").status, 404)
        let journalBefore = try E2E.journal(client, tenant: nil).map { JSONNumber.int($0["id"]) }
        XCTAssertEqual(journalBefore.count, 2)
        let refused: [(String, String, String)] = [
            ("GET", "/catbird/api/requests?limit=1&limit=2", #"query parameter "limit" is given more than once"#),
            ("GET", "/catbird/api/requests?status=99", "'status' must be an HTTP status from 100 to 599"),
            ("GET", "/catbird/api/requests?status=600", "not 600"),
            ("GET", "/catbird/api/requests?url=%ZZ", "not valid percent-encoded UTF-8"),
            ("GET", "/catbird/api/requests?url=%FF", "not valid percent-encoded UTF-8"),
            ("DELETE", "/catbird/api/tenants/%FF", "not valid percent-encoded UTF-8"),
            // The HAR export takes the listing's parameters with the same 400s: these were
            // exported as if the parameter had been written otherwise.
            ("GET", "/catbird/api/requests.har?limit=1&limit=2", #"query parameter "limit" is given more than once"#),
            ("GET", "/catbird/api/requests.har?url=%ZZ", "not valid percent-encoded UTF-8"),
            ("GET", "/catbird/api/requests.har?status=404&status=200", #"query parameter "status" is given more than once"#),
            ("GET", "/catbird/api/requests.har?wait=1", "'wait' is not accepted by the HAR export"),
            // T18B note, the exact request: the unknown parameter's 400 listed `wait` as known.
            ("GET", "/catbird/api/requests.har?bogus=1",
             #"unknown query parameter "bogus" (known: since, before, order, limit, method, url, status, answeredBy, bodies)"#),
            // T18B note: a whole number past 64 bits was told it is not a whole number.
            ("GET", "/catbird/api/requests.har?limit=99999999999999999999999", "'limit' (99999999999999999999999) is too large (at most 9223372036854775807)"),
            ("GET", "/catbird/api/requests.har?limit=0", "'limit' must be a whole number of entries, 1 or more"),
            ("GET", "/catbird/api/requests.har?limit=-99999999999999999999999", "'limit' must be a whole number of entries, 1 or more"),
            ("DELETE", "/catbird/api/tenants/%ZZ", "not valid percent-encoded UTF-8"),
        ]
        for (method, target, reason) in refused {
            E2E.assertError(try client.request(method, target), status: 400, reasonContains: reason)
        }
        XCTAssertEqual(try client.request("GET", "/kept", headers: shard).text, "kept", "the tenant named \"%ZZ\" was not deleted")
        XCTAssertEqual(try E2E.journal(client, tenant: nil).map { JSONNumber.int($0["id"]) }, journalBefore, "the default tenant's journal is as it was")
        // The same parameters, well formed, filter as asked.
        let notFound = try E2E.journal(client, tenant: nil, query: "status=404&limit=1")
        XCTAssertEqual(notFound.map { $0["url"] as? String }, ["/missing"], "\(notFound)")
        let here = try E2E.journal(client, tenant: nil, query: "url=%2Fhere")
        XCTAssertEqual(here.map { $0["url"] as? String }, ["/here"], "\(here)")
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/%25ZZ").status, 204, "the id written percent-encoded")
        XCTAssertEqual(try client.request("GET", "/kept", headers: shard).status, 404)
    }

    /// Tester finding T19B-F16, the exact request: `GET /catbird/api/requests?` + 6,000 `q` +
    /// `=1` echoed the name whole (a 6,110-byte reason), on routes that take no parameter too;
    /// so did a name given twice. Each is cut to 64 bytes and its length, as every echoed name.
    func testALongQueryParameterNameIsCutInItsReason() throws {
        let long = String(repeating: "q", count: 6_000)
        let shown = #""\#(String(repeating: "q", count: 64))…" (6000 bytes)"#
        let cases: [(String, String)] = [
            ("/catbird/api/requests?\(long)=1", "unknown query parameter \(shown) (known: since, before, "),
            ("/catbird/api/info?\(long)=1", "unknown query parameter \(shown) (this route takes none)"),
            ("/catbird/api/requests?\(long.prefix(4_000))=1&\(long.prefix(4_000))=2",
             #"query parameter ""# + String(repeating: "q", count: 64) + #"…" (4000 bytes) is given more than once"#),
        ]
        for (target, expected) in cases {
            let answer = try client.request("GET", target)
            E2E.assertError(answer, status: 400, reasonContains: expected)
            XCTAssertLessThan((answer.object["reason"] as? String ?? "").utf8.count, 300, answer.text)
        }
    }
}
