import CatbirdTestSupport
import Foundation
import XCTest

/// `GET|DELETE /catbird/api/requests` and `POST /catbird/api/requests/count` (docs/protocol.md#journal, docs/protocol.md#count).
final class JournalRouteTests: XCTestCase {
    func testEntryHoldsEveryFieldOfTheExchange() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(
            client, tenant: "journal-t", method: "POST", url: "/submit?id=7&x=a%20b", status: 202,
            responseHeaders: ["X-Reply": "yes", "Content-Type": "text/plain"], body: "accepted")
        let mockID = JSONNumber.int(try E2E.mocks(client, tenant: "journal-t").first?["id"])
        XCTAssertNotNil(mockID)

        let served = try client.request(
            "POST", "/submit?id=7&x=a%20b",
            headers: [("X-Catbird-Parallel-Id", "journal-t"), ("X-Trace", "abc-123"), ("Content-Type", "text/plain")],
            body: Array("hello body".utf8))
        XCTAssertEqual(served.status, 202)
        let missed = try client.request("GET", "/nothing?q=1", headers: E2E.tenantHeader("journal-t"))
        XCTAssertEqual(missed.status, 404)

        let entries = try E2E.journal(client, tenant: "journal-t")
        XCTAssertEqual(entries.count, 2)
        guard entries.count == 2 else { return }
        let hit = entries[0]
        let hitID = try XCTUnwrap(JSONNumber.int(hit["id"]))
        XCTAssertGreaterThan(hitID, 0)
        let time = try XCTUnwrap(hit["time"] as? String)
        XCTAssertTrue(E2E.matches(time, E2E.timePattern), time)
        XCTAssertEqual(hit["tenant"] as? String, "journal-t")
        XCTAssertEqual(hit["method"] as? String, "POST")
        XCTAssertEqual(hit["url"] as? String, "/submit?id=7&x=a%20b", "the target as sent, not unescaped")
        let request = try XCTUnwrap(hit["request"] as? [String: Any])
        let requestHeaders = try XCTUnwrap(request["headers"] as? [String: String])
        XCTAssertEqual(requestHeaders["X-Trace"], "abc-123")
        XCTAssertEqual(requestHeaders["X-Catbird-Parallel-Id"], "journal-t")
        XCTAssertEqual(requestHeaders["Content-Length"], "10")
        XCTAssertEqual(request["body"] as? String, "hello body")
        XCTAssertEqual(request["bodyBase64"] as? String, Data("hello body".utf8).base64EncodedString())
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), 10)
        XCTAssertEqual(request["bodyTruncated"] as? Bool, false)
        let response = try XCTUnwrap(hit["response"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(response["status"]), 202)
        let responseHeaders = try XCTUnwrap(response["headers"] as? [String: String])
        XCTAssertEqual(responseHeaders["X-Reply"], "yes")
        XCTAssertEqual(responseHeaders["Content-Type"], "text/plain")
        XCTAssertEqual(response["body"] as? String, "accepted")
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), 8)
        XCTAssertEqual(response["bodyTruncated"] as? Bool, false)
        XCTAssertEqual(hit["answeredBy"] as? String, "mock")
        XCTAssertEqual(JSONNumber.int(hit["mockId"]), mockID)
        let duration = try XCTUnwrap(JSONNumber.double(hit["durationMs"]))
        XCTAssertGreaterThanOrEqual(duration, 0)

        let miss = entries[1]
        XCTAssertGreaterThan(JSONNumber.int(miss["id"]) ?? 0, hitID)
        let missTime = try XCTUnwrap(miss["time"] as? String)
        XCTAssertTrue(E2E.matches(missTime, E2E.timePattern), missTime)
        XCTAssertGreaterThanOrEqual(missTime, time, "times sort like the ids")
        XCTAssertEqual(miss["method"] as? String, "GET")
        XCTAssertEqual(miss["url"] as? String, "/nothing?q=1")
        XCTAssertEqual(miss["answeredBy"] as? String, "none")
        XCTAssertTrue(E2E.isNull(miss["mockId"]), "\(miss["mockId"] ?? "nil")")
        let missRequest = try XCTUnwrap(miss["request"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(missRequest["bodySize"]), 0)
        XCTAssertTrue(E2E.isNull(missRequest["body"]))
        let missResponse = try XCTUnwrap(miss["response"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(missResponse["status"]), 404)
        let missBody = try XCTUnwrap(missResponse["body"] as? String)
        let missReason = (try JSONSerialization.jsonObject(with: Data(missBody.utf8)) as? [String: Any])?["reason"] as? String
        XCTAssertTrue(missReason?.hasPrefix("no mock matched GET /nothing?q=1 in tenant") ?? false, missBody)
        XCTAssertNotNil(miss["nearMisses"] as? [Any], "a 404's entry carries its near misses")
        XCTAssertGreaterThanOrEqual(JSONNumber.double(miss["durationMs"]) ?? -1, 0)
    }

    func testPagingWithSinceAndLimit() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for index in 0..<25 { XCTAssertEqual(try client.request("GET", "/page/\(index)").status, 404) }

        var urls: [String] = []
        var ids: [Int] = []
        var since: Int?
        var pageSizes: [Int] = []
        var hasMores: [Bool?] = []
        for _ in 0..<3 {
            let query = since.map { "since=\($0)&limit=10" } ?? "limit=10"
            let page = try E2E.journalPage(client, tenant: nil, query: query)
            let entries = page["requests"] as? [[String: Any]] ?? []
            pageSizes.append(entries.count)
            hasMores.append(page["hasMore"] as? Bool)
            urls += entries.compactMap { $0["url"] as? String }
            ids += entries.compactMap { JSONNumber.int($0["id"]) }
            XCTAssertEqual(JSONNumber.int(page["nextSince"]), JSONNumber.int(entries.last?["id"]), "nextSince is the page's last id")
            since = JSONNumber.int(page["nextSince"])
        }
        XCTAssertEqual(pageSizes, [10, 10, 5])
        XCTAssertEqual(hasMores, [true, true, false])
        XCTAssertEqual(urls, (0..<25).map { "/page/\($0)" })
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(Set(ids).count, 25)

        // Past the end: empty, no more, nextSince stays where it was.
        let end = try E2E.journalPage(client, tenant: nil, query: "since=\(since ?? 0)&limit=10")
        XCTAssertEqual((end["requests"] as? [Any])?.count, 0)
        XCTAssertEqual(end["hasMore"] as? Bool, false)
        XCTAssertEqual(JSONNumber.int(end["nextSince"]), since)
        // Exactly one page's worth left: hasMore false.
        let exact = try E2E.journalPage(client, tenant: nil, query: "since=\(ids[14])&limit=10")
        XCTAssertEqual((exact["requests"] as? [Any])?.count, 10)
        XCTAssertEqual(exact["hasMore"] as? Bool, false)
        // No limit: the default page (100) holds all 25.
        XCTAssertEqual(try E2E.journal(client, tenant: nil, query: "").count, 25)

        E2E.assertError(try client.request("GET", "/catbird/api/requests?limit=0"), status: 400, reasonContains: "limit")
        E2E.assertError(try client.request("GET", "/catbird/api/requests?limit=1001"), status: 400, reasonContains: "limit")
        E2E.assertError(try client.request("GET", "/catbird/api/requests?since=-1"), status: 400, reasonContains: "since")
        E2E.assertError(try client.request("GET", "/catbird/api/requests?since=abc"), status: 400, reasonContains: "since")
        E2E.assertError(try client.request("GET", "/catbird/api/requests?colour=red"), status: 400, reasonContains: "colour")
    }

    func testFiltersByMethodURLStatusAndAnsweredBy() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/f/ok", body: "get ok")
        try E2E.addMock(client, method: "POST", url: "/f/ok", status: 201, body: "post ok")
        XCTAssertEqual(try client.request("GET", "/f/ok").status, 200)
        XCTAssertEqual(try client.request("POST", "/f/ok", body: Array("x".utf8)).status, 201)
        XCTAssertEqual(try client.request("GET", "/f/missing?a=b").status, 404)
        XCTAssertEqual(try client.request("DELETE", "/other").status, 404)

        func urls(_ query: String, line: UInt = #line) throws -> [String] {
            try E2E.journal(client, tenant: nil, query: query, line: line).compactMap { $0["url"] as? String }
        }
        XCTAssertEqual(try urls("method=POST"), ["/f/ok"])
        XCTAssertEqual(try urls("method=DELETE"), ["/other"])
        XCTAssertEqual(try urls("method=get"), [], "method is compared exactly")
        XCTAssertEqual(try urls("url=/f/"), ["/f/ok", "/f/ok", "/f/missing?a=b"])
        XCTAssertEqual(try urls("url=%2Ff%2F"), ["/f/ok", "/f/ok", "/f/missing?a=b"], "the filter value is percent-decoded")
        XCTAssertEqual(try urls("url=missing"), ["/f/missing?a=b"])
        XCTAssertEqual(try urls("url=%3Fa%3Db"), ["/f/missing?a=b"])
        XCTAssertEqual(try urls("url=/F/"), [], "url substring is case-sensitive")
        XCTAssertEqual(try urls("status=404"), ["/f/missing?a=b", "/other"])
        XCTAssertEqual(try urls("status=201"), ["/f/ok"])
        XCTAssertEqual(try urls("answeredBy=mock"), ["/f/ok", "/f/ok"])
        XCTAssertEqual(try urls("answeredBy=none"), ["/f/missing?a=b", "/other"])
        XCTAssertEqual(try urls("answeredBy=proxy"), [])
        XCTAssertEqual(try urls("method=GET&status=404"), ["/f/missing?a=b"])
        XCTAssertEqual(try urls("method=GET&answeredBy=mock&url=ok"), ["/f/ok"])
        let limited = try E2E.journalPage(client, tenant: nil, query: "url=/f/&limit=2")
        XCTAssertEqual((limited["requests"] as? [[String: Any]])?.compactMap { $0["url"] as? String }, ["/f/ok", "/f/ok"])
        XCTAssertEqual(limited["hasMore"] as? Bool, true)

        E2E.assertError(try client.request("GET", "/catbird/api/requests?status=ok"), status: 400, reasonContains: "status")
        E2E.assertError(try client.request("GET", "/catbird/api/requests?answeredBy=robot"), status: 400, reasonContains: "answeredBy")
    }

    func testDeleteClearsOnlyTheCallersJournal() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        for _ in 0..<3 { _ = try client.request("GET", "/p", headers: E2E.tenantHeader("P")) }
        for _ in 0..<2 { _ = try client.request("GET", "/q", headers: E2E.tenantHeader("Q")) }
        _ = try client.request("GET", "/default")

        let deleted = try client.request("DELETE", "/catbird/api/requests", headers: E2E.tenantHeader("P"))
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(JSONNumber.int(deleted.object["deleted"]), 3)
        XCTAssertEqual(try E2E.journal(client, tenant: "P").count, 0)
        XCTAssertEqual(try E2E.journal(client, tenant: "Q").compactMap { $0["url"] as? String }, ["/q", "/q"])
        XCTAssertEqual(try E2E.journal(client, tenant: nil).compactMap { $0["url"] as? String }, ["/default"])

        let deletedDefault = try client.request("DELETE", "/catbird/api/requests")
        XCTAssertEqual(JSONNumber.int(deletedDefault.object["deleted"]), 1)
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0)
        XCTAssertEqual(try E2E.journal(client, tenant: "Q").count, 2)

        // The journal goes on after a clear.
        _ = try client.request("GET", "/p/again", headers: E2E.tenantHeader("P"))
        XCTAssertEqual(try E2E.journal(client, tenant: "P").compactMap { $0["url"] as? String }, ["/p/again"])
    }

    func testCountByEqualWildcardRegexpAndHeaderPatterns() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let tenant = "counting"
        let sent: [(method: String, target: String, clientName: String?)] = [
            ("GET", "/api/books?id=1", "ios"),
            ("GET", "/api/books?id=2", "android"),
            ("GET", "/api/authors", "ios"),
            ("GET", "/API/BOOKS?id=3", nil),
            ("POST", "/api/books", "ios"),
            ("GET", "/search?q=a/b", "Android-TV"),
        ]
        for request in sent {
            var headers = E2E.tenantHeader(tenant)
            if let name = request.clientName { headers.append(("X-Client", name)) }
            _ = try client.request(request.method, request.target, headers: headers)
        }
        // The same requests in another tenant must not be counted.
        for request in sent { _ = try client.request(request.method, request.target, headers: E2E.tenantHeader("elsewhere")) }

        func count(_ method: String, _ kind: String, _ url: String, headers: String = "{}", line: UInt = #line) throws -> Int? {
            let pattern = #"{"method":"\#(method)","url":{"kind":"\#(kind)","value":"\#(url)"},"headers":\#(headers)}"#
            return try E2E.count(client, tenant: tenant, patternJSON: pattern, line: line)
        }
        XCTAssertEqual(try count("GET", "equal", "/api/books?id=1"), 1)
        XCTAssertEqual(try count("GET", "equal", "/api/books"), 0, "equal compares the whole target")
        XCTAssertEqual(try count("GET", "equal", "/api/BOOKS?id=1"), 0, "equal is case-sensitive")
        XCTAssertEqual(try count("GET", "wildcard", "/api/books*"), 3, "wildcard is case-insensitive")
        XCTAssertEqual(try count("GET", "wildcard", "/api/books"), 0, "wildcard is anchored")
        XCTAssertEqual(try count("GET", "wildcard", "/api/{books,authors}*"), 4)
        XCTAssertEqual(try count("GET", "wildcard", #"/search\\?q=*"#), 1)
        XCTAssertEqual(try count("GET", "wildcard", "*"), 5)
        XCTAssertEqual(try count("POST", "wildcard", "*"), 1)
        XCTAssertEqual(try count("get", "wildcard", "*"), 0, "method is compared exactly")
        XCTAssertEqual(try count("GET", "regexp", #"books\\?id=[12]"#), 2, "regexp is an unanchored search")
        XCTAssertEqual(try count("GET", "regexp", "^/api/(books|authors)"), 4)
        XCTAssertEqual(try count("GET", "regexp", "authors$"), 1)
        XCTAssertEqual(try count("GET", "wildcard", "*", headers: #"{"X-Client":{"kind":"equal","value":"ios"}}"#), 2)
        XCTAssertEqual(
            try count("GET", "wildcard", "*", headers: #"{"x-client":{"kind":"regexp","value":"^android"}}"#), 2,
            "header names are case-insensitive; regexp values too")
        XCTAssertEqual(try count("GET", "wildcard", "*", headers: #"{"X-Client":{"kind":"equal","value":"Android"}}"#), 0)
        XCTAssertEqual(try count("GET", "wildcard", "*", headers: #"{"X-Client":{"kind":"wildcard","value":"*"}}"#), 4,
                       "a header pattern requires the header to be present")
        XCTAssertEqual(
            try count("GET", "regexp", "books", headers: #"{"X-Client":{"kind":"equal","value":"ios"},"X-Catbird-Parallel-Id":{"kind":"equal","value":"counting"}}"#),
            1)

        // `headers` may be left out (accepted as {}).
        XCTAssertEqual(
            try E2E.count(client, tenant: tenant, patternJSON: #"{"method":"POST","url":{"kind":"equal","value":"/api/books"}}"#), 1)
        let badRegexp = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"regexp","value":"(["},"headers":{}}}"#,
            headers: E2E.tenantHeader(tenant))
        E2E.assertError(badRegexp, status: 400)
        let notJSON = try client.request(
            "POST", "/catbird/api/requests/count", headers: [("Content-Type", "text/plain")], body: Array("{}".utf8))
        E2E.assertError(notJSON, status: 415)
        let noPattern = try client.json("POST", "/catbird/api/requests/count", "{}")
        E2E.assertError(noPattern, status: 400, reasonContains: "pattern")
    }

    func testBodiesOverTheJournalBodyLimitAreTruncatedAndMarked() throws {
        let server = try TestServer { $0.journalBodyLimit = 16 }
        defer { server.removeFiles() }
        let client = try server.client()
        let responseBody = String(repeating: "r", count: 24) + String(repeating: "s", count: 16)
        try E2E.addMock(client, method: "POST", url: "/upload", body: responseBody)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let requestBody = (0..<100).map { alphabet[$0 % alphabet.count] }
        XCTAssertEqual(try client.request("POST", "/upload", body: requestBody).text, responseBody, "the served body is whole")
        XCTAssertEqual(try client.request("POST", "/upload", body: Array(requestBody[..<16])).status, 200)

        let entries = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(entries.count, 2)
        guard entries.count == 2 else { return }
        let request = try XCTUnwrap(entries[0]["request"] as? [String: Any])
        XCTAssertEqual(request["body"] as? String, String(decoding: requestBody[..<16], as: UTF8.self))
        XCTAssertEqual(request["bodyBase64"] as? String, Data(requestBody[..<16]).base64EncodedString())
        XCTAssertEqual(JSONNumber.int(request["bodySize"]), 100)
        XCTAssertEqual(request["bodyTruncated"] as? Bool, true)
        let response = try XCTUnwrap(entries[0]["response"] as? [String: Any])
        XCTAssertEqual(response["body"] as? String, String(repeating: "r", count: 16))
        XCTAssertEqual(JSONNumber.int(response["bodySize"]), 40)
        XCTAssertEqual(response["bodyTruncated"] as? Bool, true)

        let exact = try XCTUnwrap(entries[1]["request"] as? [String: Any])
        XCTAssertEqual(JSONNumber.int(exact["bodySize"]), 16)
        XCTAssertEqual(exact["bodyTruncated"] as? Bool, false, "a body of exactly the limit is whole")

        let rows = try E2E.sqlRows(
            client, "SELECT length(request_body), request_body_size, request_body_truncated, length(response_body) FROM requests ORDER BY id")
        XCTAssertEqual(rows.map { $0.map { JSONNumber.int($0) } }, [[16, 100, 1, 16], [16, 16, 0, 16]])
    }

    // MARK: - Ids (regression tests)

    /// A poller (the web page, a test's watcher) keeps `nextSince` and asks for what is newer.
    /// When someone else clears the journal, later entries must still come after that id.
    func testPagingFromTheLastSeenIdAfterAClearStillSeesNewEntries() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let poller = try server.client()
        let app = try server.client()
        for index in 0..<3 { _ = try app.request("GET", "/before/\(index)") }
        let seen = try E2E.journalPage(poller, tenant: nil, query: "limit=10")
        let lastSeen = try XCTUnwrap(JSONNumber.int(seen["nextSince"]))
        XCTAssertEqual((seen["requests"] as? [Any])?.count, 3)

        XCTAssertEqual(JSONNumber.int(try app.request("DELETE", "/catbird/api/requests").object["deleted"]), 3)
        for index in 0..<2 { _ = try app.request("GET", "/after/\(index)") }

        let newer = try E2E.journal(poller, tenant: nil, query: "since=\(lastSeen)&limit=10")
        XCTAssertEqual(newer.compactMap { $0["url"] as? String }, ["/after/0", "/after/1"],
                       "entries after the clear must have ids above the last id handed out")
        let ids = try E2E.journal(poller, tenant: nil).compactMap { JSONNumber.int($0["id"]) }
        XCTAssertTrue(ids.allSatisfy { $0 > lastSeen }, "ids \(ids) reuse ids up to \(lastSeen)")
    }

    /// The journal's `mockId` names "the mock that answered; it may since be gone". A later mock
    /// must not take over a removed mock's id, or old entries name the wrong mock.
    func testAJournalMockIdNeverNamesALaterMock() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/first", body: "first mock")
        XCTAssertEqual(try client.request("GET", "/first").text, "first mock")
        try E2E.removeAll(client, tenant: nil)
        try E2E.addMock(client, url: "/second", body: "second mock")
        XCTAssertEqual(try client.request("GET", "/second").text, "second mock")

        let entries = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(entries.compactMap { $0["url"] as? String }, ["/first", "/second"])
        let mockIDs = entries.compactMap { JSONNumber.int($0["mockId"]) }
        XCTAssertEqual(mockIDs.count, 2)
        XCTAssertEqual(Set(mockIDs).count, 2, "two different mocks answered, yet the journal names mock ids \(mockIDs)")
        // Through the public SQL names: the request to /first joined to its mock.
        let joined = try E2E.sqlRows(
            client, "SELECT m.url_value FROM requests r JOIN mocks m ON m.id = r.mock_id WHERE r.url = '/first'")
        XCTAssertEqual(joined.count, 0, "the mock that answered /first is gone; \(joined) is another mock")

        // Replacing in place gives a new id too (migrations/0001_initial.sql, Mock.id).
        let before = JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["id"])
        try E2E.addMock(client, url: "/second", body: "second mock, v2")
        let after = JSONNumber.int(try E2E.mocks(client, tenant: nil).first?["id"])
        XCTAssertNotNil(before)
        XCTAssertNotEqual(after, before, "a replaced mock gets a new id")
    }
}
