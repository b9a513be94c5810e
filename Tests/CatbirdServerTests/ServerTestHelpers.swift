import CatbirdServer
import CatbirdStorage
import CatbirdTestSupport
import Foundation
import XCTest

/// Small helpers shared by the end-to-end suites: building control actions, reading the JSON
/// answers of the journal, mocks, tenants and SQL routes, and running clients on many threads.
/// Kept in one namespace so they cannot clash with other files of this test target.
enum E2E {
    /// Health's statuses, asked every `interval` seconds (no other request) until one is 200 or
    /// `seconds` have passed; the last is 200 when health came back.
    static func healthStatusesUntilOK(_ client: RawHTTPClient, within seconds: TimeInterval = 10, every interval: useconds_t) throws -> [Int] {
        var statuses: [Int] = []
        let deadline = Date().addingTimeInterval(seconds)
        while statuses.last != 200, Date() < deadline {
            statuses.append(try client.request("GET", "/catbird/api/health").status)
            usleep(interval)
        }
        return statuses
    }

    /// The journal's and tenants' time format: UTC, ISO 8601 with milliseconds.
    static let timePattern = #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#

    /// The `X-Catbird-Parallel-Id` header for `tenant`; none for the default tenant (nil).
    static func tenantHeader(_ tenant: String?) -> [(String, String)] {
        tenant.map { [("X-Catbird-Parallel-Id", $0)] } ?? []
    }

    /// A `RequestPattern` as a JSON-ready dictionary.
    static func pattern(
        method: String = "GET", url: String, kind: String = "equal", headers: [String: (kind: String, value: String)] = [:]
    ) -> [String: Any] {
        [
            "method": method,
            "url": ["kind": kind, "value": url],
            "headers": headers.mapValues { ["kind": $0.kind, "value": $0.value] },
        ]
    }

    /// JSON text of a dictionary (sorted keys, so failures print stably).
    static func jsonText(_ object: Any) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The `update` control action.
    static func updateAction(
        method: String = "GET", url: String, kind: String = "equal", headerPatterns: [String: (kind: String, value: String)] = [:],
        status: Int = 200, responseHeaders: [String: String] = [:], body: [UInt8]?, limit: Int? = nil, delay: Int? = nil
    ) -> String {
        var response: [String: Any] = ["status": status, "headers": responseHeaders]
        if let body { response["body"] = Data(body).base64EncodedString() }
        if let limit { response["limit"] = limit }
        if let delay { response["delay"] = delay }
        return jsonText([
            "type": "update",
            "pattern": pattern(method: method, url: url, kind: kind, headers: headerPatterns),
            "response": response,
        ])
    }

    /// SQL that writes `rows` journal rows of `tenant` (and its tenant row) straight into a
    /// stopped server's file (``TestServer/restart(_:)``): `GET /<prefix>/<i>` answered 404,
    /// journaled 2026-01-01 (past the default age limit: turn retention off).
    static func largeJournalSQL(tenant: String, rows: Int, prefix: String) -> String {
        """
        INSERT INTO tenants (id, created_at, last_activity_at) VALUES ('\(tenant)', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
        INSERT INTO journal_rows (time, tenant, method, url, request_headers, status, answered_by, duration_ms)
        SELECT '2026-01-01T00:00:00.000Z', '\(tenant)', 'GET', '/\(prefix)/' || i, '{"Accept":"*/*"}', 404, 'none', 0.1 FROM n;
        """
    }

    /// Adds (or replaces) a mock over the control API and asserts the 201.
    static func addMock(
        _ client: RawHTTPClient, tenant: String? = nil, method: String = "GET", url: String, kind: String = "equal",
        headerPatterns: [String: (kind: String, value: String)] = [:], status: Int = 200,
        responseHeaders: [String: String] = [:], body: String?, limit: Int? = nil, delay: Int? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let action = updateAction(
            method: method, url: url, kind: kind, headerPatterns: headerPatterns, status: status,
            responseHeaders: responseHeaders, body: body.map { Array($0.utf8) }, limit: limit, delay: delay)
        let answer = try client.json("POST", "/catbird/api/mocks", action, headers: tenantHeader(tenant))
        XCTAssertEqual(answer.status, 201, "update \(url) for tenant \(tenant ?? "(default)"): \(answer.text)", file: file, line: line)
    }

    /// Sends `removeAll` for the tenant and asserts the 204.
    static func removeAll(_ client: RawHTTPClient, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try client.json("POST", "/catbird/api/mocks", #"{"type":"removeAll"}"#, headers: tenantHeader(tenant))
        XCTAssertEqual(answer.status, 204, answer.text, file: file, line: line)
    }

    /// `GET /catbird/api/mocks` for the tenant: the whole answer.
    static func mockList(_ client: RawHTTPClient, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let answer = try client.request("GET", "/catbird/api/mocks", headers: tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        return answer.object
    }

    /// The tenant's mocks as listed, in match order.
    static func mocks(_ client: RawHTTPClient, tenant: String?, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try mockList(client, tenant: tenant, file: file, line: line)["mocks"] as? [[String: Any]] ?? []
    }

    /// Waits up to 10 s until the default tenant's mock for `url` has counted `hits` hits
    /// (a delayed request has been matched and parked); whether it did.
    static func waitForHits(_ client: RawHTTPClient, url: String, _ hits: Int) throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while ContinuousClock.now < deadline {
            let mock = try mocks(client, tenant: nil).first { (($0["pattern"] as? [String: Any])?["url"] as? [String: Any])?["value"] as? String == url }
            if JSONNumber.int(mock?["hits"]) == hits { return true }
            usleep(2000)
        }
        return false
    }

    /// `GET /catbird/api/requests?<query>` for the tenant: the page object.
    static func journalPage(
        _ client: RawHTTPClient, tenant: String?, query: String = "", file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        let target = query.isEmpty ? "/catbird/api/requests" : "/catbird/api/requests?\(query)"
        let answer = try client.request("GET", target, headers: tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, "\(target): \(answer.text)", file: file, line: line)
        return answer.object
    }

    /// The entries of one journal page.
    static func journal(
        _ client: RawHTTPClient, tenant: String?, query: String = "limit=1000", file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[String: Any]] {
        try journalPage(client, tenant: tenant, query: query, file: file, line: line)["requests"] as? [[String: Any]] ?? []
    }

    /// The entries of `tenant`'s journal once it holds `count`, waiting up to 10 s: a refusal
    /// that libmicrohttpd made, or that closes the connection, is journaled when libmicrohttpd is
    /// done with the connection, a moment after its answer went out.
    static func journal(
        _ client: RawHTTPClient, tenant: String?, once count: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(10)
        var journal = try E2E.journal(client, tenant: tenant, file: file, line: line)
        while journal.count < count, ContinuousClock.now < deadline {
            usleep(50_000)
            journal = try E2E.journal(client, tenant: tenant, file: file, line: line)
        }
        XCTAssertEqual(journal.count, count, "\(journal)", file: file, line: line)
        return journal
    }

    /// Waits up to 10 s until `count` requests wait for their answer on no worker thread
    /// (``TestServer/waitingAnswers``: parked, or a refusal to be answered later), and asserts it.
    static func waitUntilWaiting(_ server: TestServer, _ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = ContinuousClock.now + .seconds(10)
        while server.waitingAnswers < count, ContinuousClock.now < deadline { usleep(5_000) }
        XCTAssertEqual(server.waitingAnswers, count, "requests waiting for their answer without a worker", file: file, line: line)
    }

    /// The `/catbird/metrics` scrape's samples by name and labels, e.g.
    /// `catbird_requests_total{answered_by="mock",status_class="2xx"}`.
    static func metrics(_ client: RawHTTPClient) throws -> [String: Double] {
        let text = try client.request("GET", "/catbird/metrics").text
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// `text` sent on a connection of its own to `server`, and what came back until the server
    /// closed the connection.
    static func exchange(_ server: TestServer, _ text: String) throws -> String {
        let raw = try server.client()
        try raw.send(raw: Array(text.utf8))
        return String(decoding: raw.readToEnd(), as: UTF8.self)
    }

    /// `POST /catbird/api/requests/count` with `patternJSON`; nil when the answer is not a count.
    static func count(
        _ client: RawHTTPClient, tenant: String?, patternJSON: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Int? {
        let answer = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":\#(patternJSON)}"#, headers: tenantHeader(tenant))
        XCTAssertEqual(answer.status, 200, "count \(patternJSON): \(answer.text)", file: file, line: line)
        return JSONNumber.int(answer.object["count"])
    }

    /// Caps `settings`' database file at `pagesAbove` pages over its size now (SQLite's
    /// `max_page_count`: writes past it fail with `SQLITE_FULL`, as on a full disk, with no
    /// privileges needed). The file must exist (a server started once on it).
    static func capDatabase(_ settings: inout CatbirdServer.Settings, pagesAbove: Int) throws {
        let pages = try Database(path: settings.databasePath, mode: .readOnly)
        defer { pages.close() }
        settings.maxDatabasePages = Int(try pages.query("PRAGMA page_count").first?[0].intValue ?? 0) + pagesAbove
    }

    /// `POST /catbird/api/sql` as `tenant` (nil: the default tenant, no header); the query sees
    /// that tenant's rows only.
    static func sql(
        _ client: RawHTTPClient, _ sql: String, params: [Any] = [], maxRows: Int? = nil, tenant: String? = nil
    ) throws -> RawResponse {
        var body: [String: Any] = ["sql": sql, "params": params]
        if let maxRows { body["maxRows"] = maxRows }
        return try client.json("POST", "/catbird/api/sql", jsonText(body), headers: tenantHeader(tenant))
    }

    /// The rows of a successful SQL answer (asserts the 200).
    static func sqlRows(
        _ client: RawHTTPClient, _ query: String, params: [Any] = [], tenant: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[Any]] {
        let answer = try sql(client, query, params: params, tenant: tenant)
        XCTAssertEqual(answer.status, 200, "\(query): \(answer.text)", file: file, line: line)
        return answer.object["rows"] as? [[Any]] ?? []
    }

    /// `GET /catbird/api/tenants`: the tenant summaries by id.
    static func tenants(_ client: RawHTTPClient, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let answer = try client.request("GET", "/catbird/api/tenants")
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        return answer.object["tenants"] as? [[String: Any]] ?? []
    }

    /// Asserts Catbird's error shape: the status, `{"error": true, "reason": …}` with a JSON
    /// Content-Type, and the reason containing `reasonContains` (case-insensitive).
    static func assertError(
        _ response: RawResponse, status: Int, reasonContains: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", file: file, line: line)
        XCTAssertEqual(response.object["error"] as? Bool, true, response.text, file: file, line: line)
        let reason = response.object["reason"] as? String ?? ""
        XCTAssertFalse(reason.isEmpty, "no reason in \(response.text)", file: file, line: line)
        if let reasonContains {
            XCTAssertTrue(reason.lowercased().contains(reasonContains.lowercased()), "reason \"\(reason)\" lacks \"\(reasonContains)\"", file: file, line: line)
        }
    }

    /// True for a JSON null or a missing key.
    static func isNull(_ value: Any?) -> Bool {
        value == nil || value is NSNull
    }

    /// Whether `text` matches the regular expression `pattern` (whole-string anchors are the
    /// pattern's own).
    static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }

    /// One request to send in a pipeline.
    struct PipelinedRequest {
        var method: String
        var target: String
        var headers: [(String, String)] = []
        var body: [UInt8]? = nil
    }

    /// Sends all `requests` back to back on the connection (HTTP/1.1 pipelining), then reads
    /// their responses in order. The server handles them one after the other with no client
    /// round trip in between.
    static func pipeline(_ client: RawHTTPClient, _ requests: [PipelinedRequest]) throws -> [RawResponse] {
        try sendPipelined(client, requests)
        return try requests.map { _ in try client.readResponse() }
    }

    /// Sends all `requests` back to back without reading; read the responses with
    /// `client.readResponse()`, one per request, in order.
    static func sendPipelined(_ client: RawHTTPClient, _ requests: [PipelinedRequest]) throws {
        var bytes: [UInt8] = []
        for request in requests {
            var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
            if let body = request.body { head += "Content-Length: \(body.count)\r\n" }
            bytes += Array((head + "\r\n").utf8) + (request.body ?? [])
        }
        try client.send(raw: bytes)
    }

    /// A control action as a pipelined request.
    static func control(_ action: String, tenant: String?) -> PipelinedRequest {
        PipelinedRequest(
            method: "POST", target: "/catbird/api/mocks", headers: [("Content-Type", "application/json")] + tenantHeader(tenant),
            body: Array(action.utf8))
    }

    /// Asks on one keep-alive connection to `port`, request after request, until the server
    /// goes away (killed or stopped: no answer), `received` returns false, or 30 s pass.
    /// `url(n)` is the n-th request's target (from 1); `received` is told each answer.
    static func askUntilGone(
        port: UInt16, headers: [(String, String)] = [], url: (Int) -> String, received: (String, RawResponse) -> Bool
    ) {
        guard let connection = try? RawHTTPClient(port: port, timeoutSeconds: 10) else { return }
        var sequence = 0
        let deadline = ContinuousClock.now + .seconds(30)  // the kill or the stop comes long before
        while ContinuousClock.now < deadline {
            sequence += 1
            let target = url(sequence)
            guard let response = try? connection.request("GET", target, headers: headers) else { return }
            guard received(target, response) else { return }
        }
    }

    /// `catbird_buffered_bytes` of a scrape of `server`'s `GET /catbird/metrics`.
    static func bufferedBytes(_ server: TestServer) throws -> Int? {
        let scrape = try server.client().request("GET", "/catbird/metrics").text
        let line = scrape.split(separator: "\n").first { $0.hasPrefix("catbird_buffered_bytes ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// ``bufferedBytes(_:)`` once it is 0, or after 5 s: a request's bytes are given back when
    /// libmicrohttpd completes it, a moment after its answer went out.
    static func bufferedBytesOnceGivenBack(_ server: TestServer) throws -> Int? {
        let deadline = ContinuousClock.now + .seconds(5)
        var buffered = try bufferedBytes(server)
        while buffered != 0, ContinuousClock.now < deadline {
            usleep(50_000)
            buffered = try bufferedBytes(server)
        }
        return buffered
    }

    /// Runs `body(index)` on `count` threads at once and waits for all of them.
    static func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
    }
}
