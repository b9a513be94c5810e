import CatbirdTestSupport
import Foundation
import XCTest

/// Newest-first paging with a `before` cursor, status classes, listings without bodies, one
/// entry by id and a body on demand: what the web page reads (README "Request journal").
final class JournalPagingTests: XCTestCase {
    private func ids(_ page: [String: Any]) -> [Int] {
        (page["requests"] as? [[String: Any]] ?? []).compactMap { JSONNumber.int($0["id"]) }
    }

    func testNewestFirstPagesBackWithBeforeAndGivesTheCursors() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 1...7 { _ = try client.request("GET", "/page/\(index)", headers: E2E.tenantHeader("pager")) }
        _ = try client.request("GET", "/elsewhere", headers: E2E.tenantHeader("other"))
        let all = ids(try E2E.journalPage(client, tenant: "pager", query: "limit=100"))
        XCTAssertEqual(all.count, 7)

        let first = try E2E.journalPage(client, tenant: "pager", query: "order=newest&limit=3")
        XCTAssertEqual(ids(first), Array(all.suffix(3).reversed()))
        XCTAssertEqual(first["hasMore"] as? Bool, true)
        XCTAssertEqual(JSONNumber.int(first["nextSince"]), all[6], "the highest id, to follow what comes next")
        XCTAssertEqual(JSONNumber.int(first["nextBefore"]), all[4])

        let second = try E2E.journalPage(client, tenant: "pager", query: "order=newest&limit=3&before=\(all[4])")
        XCTAssertEqual(ids(second), [all[3], all[2], all[1]])
        let last = try E2E.journalPage(client, tenant: "pager", query: "order=newest&limit=3&before=\(all[1])")
        XCTAssertEqual(ids(last), [all[0]])
        XCTAssertEqual(last["hasMore"] as? Bool, false)

        // since and before bound a window in either order.
        XCTAssertEqual(ids(try E2E.journalPage(client, tenant: "pager", query: "since=\(all[1])&before=\(all[4])")), [all[2], all[3]])
        let empty = try E2E.journalPage(client, tenant: "pager", query: "order=newest&before=\(all[0])")
        XCTAssertEqual(ids(empty), [])
        XCTAssertEqual(JSONNumber.int(empty["nextBefore"]), all[0], "an empty page keeps the cursor given")
        XCTAssertEqual(JSONNumber.int(try E2E.journalPage(client, tenant: "pager", query: "")["nextBefore"]), all[0],
                       "oldest first too: the lowest id of the page")
        XCTAssertNil(try E2E.journalPage(client, tenant: "nobody", query: "")["nextBefore"], "no entries, no cursor given")
    }

    func testStatusClassAndBodiesFilters() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/ok", status: 201, body: "created")
        try E2E.addMock(client, url: "/moved", status: 302, body: nil)
        _ = try client.request("GET", "/ok")
        _ = try client.request("GET", "/moved")
        _ = try client.request("POST", "/missing", body: Array("payload".utf8))

        let fourHundreds = try E2E.journal(client, tenant: nil, query: "status=4xx")
        XCTAssertEqual(fourHundreds.map { $0["url"] as? String }, ["/missing"])
        XCTAssertEqual(try E2E.journal(client, tenant: nil, query: "status=2XX").map { $0["url"] as? String }, ["/ok"])
        XCTAssertEqual(try E2E.journal(client, tenant: nil, query: "status=302").map { $0["url"] as? String }, ["/moved"])
        for bad in ["status=6xx", "status=4x", "order=up", "before=-1", "bodies=no"] {
            let answer = try client.request("GET", "/catbird/api/requests?\(bad)")
            XCTAssertEqual(answer.status, 400, bad)
            XCTAssertEqual(answer.object["error"] as? Bool, true, bad)
        }

        let summaries = try E2E.journal(client, tenant: nil, query: "bodies=false&url=missing")
        let request = try XCTUnwrap(summaries.first?["request"] as? [String: Any])
        XCTAssertNil(request["body"])
        XCTAssertNil(request["bodyBase64"])
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), 7, "the size stays")
    }

    func testOneEntryAndItsBodiesByIdWithinTheTenantOnly() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "shard-ü", url: "/img", responseHeaders: ["Content-Type": "text/html"], body: "<b>hi</b>")
        let body = Array("0123456789".utf8)
        _ = try client.request("POST", "/img", headers: E2E.tenantHeader("shard-ü"), body: body)
        _ = try client.request("GET", "/img", headers: E2E.tenantHeader("shard-ü"))
        let id = try XCTUnwrap(JSONNumber.int(try E2E.journal(client, tenant: "shard-ü").last?["id"]))

        let entry = try client.request("GET", "/catbird/api/requests/\(id)", headers: E2E.tenantHeader("shard-ü"))
        XCTAssertEqual(entry.status, 200, entry.text)
        XCTAssertEqual(entry.object["url"] as? String, "/img")
        XCTAssertEqual((entry.object["response"] as? [String: Any])?["body"] as? String, "<b>hi</b>")
        let bare = try client.request("GET", "/catbird/api/requests/\(id)?bodies=false", headers: E2E.tenantHeader("shard-ü"))
        XCTAssertNil((bare.object["response"] as? [String: Any])?["body"])

        let raw = try client.request("GET", "/catbird/api/requests/\(id)/response/body", headers: E2E.tenantHeader("shard-ü"))
        XCTAssertEqual(raw.status, 200)
        XCTAssertEqual(raw.text, "<b>hi</b>")
        XCTAssertEqual(raw.header("Content-Type"), "application/octet-stream", "never rendered as the mock's text/html")
        XCTAssertEqual(raw.header("Content-Security-Policy"), "sandbox; default-src 'none'")
        XCTAssertEqual(raw.header("X-Catbird-Body-Size"), "9")

        let posted = try XCTUnwrap(JSONNumber.int(try E2E.journal(client, tenant: "shard-ü").first?["id"]))
        let prefix = try client.request("GET", "/catbird/api/requests/\(posted)/request/body?limit=4", headers: E2E.tenantHeader("shard-ü"))
        XCTAssertEqual(prefix.body, Array(body.prefix(4)))
        XCTAssertEqual(prefix.header("X-Catbird-Body-Size"), "10")
        XCTAssertEqual(prefix.header("X-Catbird-Stored-Size"), "10")
        // tester20b-F6: a limit from 2^31 up (a client's `Int.max`) answered 200 with no bytes.
        for limit in ["2147483647", "2147483648", "9223372036854775807"] {
            let whole = try client.request(
                "GET", "/catbird/api/requests/\(posted)/request/body?limit=\(limit)", headers: E2E.tenantHeader("shard-ü"))
            XCTAssertEqual(whole.body, body, "limit=\(limit)")
        }

        // Another tenant (here the default one) does not see it; odd paths are 404s, ids that are
        // not whole numbers from 1 and bad limits 400s (T12-F6).
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/\(id)").status, 404)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/\(id)/response/body").status, 404)
        // Regression: `\(id)%2Fresponse%2Fbody` was decoded before it was split at '/' and served
        // the body; each segment is decoded on its own now, so it is one segment, no entry id.
        for (path, status) in [("abc", 400), ("0", 400), ("\(id)/headers", 404), ("\(id)/other/body", 404), ("\(id)%2Fresponse%2Fbody", 400)] {
            let answer = try client.request("GET", "/catbird/api/requests/\(path)", headers: E2E.tenantHeader("shard-ü"))
            XCTAssertEqual(answer.status, status, path)
            XCTAssertEqual(answer.object["error"] as? Bool, true, path)
        }
        E2E.assertError(
            try client.request("GET", "/catbird/api/requests/\(id)/response/body/x", headers: E2E.tenantHeader("shard-ü")),
            status: 400, reasonContains: "takes at most 3 path segments")
        let badLimit = try client.request("GET", "/catbird/api/requests/\(id)/response/body?limit=-1", headers: E2E.tenantHeader("shard-ü"))
        XCTAssertEqual(badLimit.status, 400)
        // The count route keeps its 405 for GET; the entry route does not take it over.
        let count = try client.request("GET", "/catbird/api/requests/count")
        XCTAssertEqual(count.status, 405)
        XCTAssertEqual(count.header("Allow"), "POST")
    }
}
