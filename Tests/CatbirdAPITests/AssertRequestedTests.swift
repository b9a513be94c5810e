import CatbirdAPI
import CatbirdTestSupport
import Foundation
import XCTest

/// `assertRequested(_:times:)`, `requestedMismatch(_:times:)` and `unmatched()` through a real
/// server: an app request with a typo in the path shows, in the app's 404 body, in the journal
/// and in the assertion's failure, which mock was closest and which field differed.
final class AssertRequestedTests: CatbirdTestCase {
    /// Failures recorded while ``capturing`` is set, kept here instead of failing the test, so
    /// that the failure `assertRequested` reports can be read (XCTest on Linux has no
    /// `XCTExpectFailure`).
    private var captured: [String]?

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if captured != nil {
            captured?.append(description)
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testATypoInThePathIsExplainedInThe404TheJournalAndTheAssertionFailure() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("typo-1")
        let users = RequestPattern(method: .GET, url: "/api/users", headers: ["Accept": PatternMatch.wildcard("*json*")])
        try catbird.send(.update(users, ResponseMock(status: 200, body: Data("[]".utf8))))
        let mockId = try XCTUnwrap(try catbird.mocks().first?.id)

        // The app's request: a typo in the path.
        let answer = try server.appRequest("GET", "/api/usres", parallelId: "typo-1", headers: [("Accept", "application/json")])
        XCTAssertEqual(answer.status, 404)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        XCTAssertEqual(
            reason,
            #"no mock matched GET /api/usres in tenant "typo-1"; the closest is mock \#(mockId) (GET equal "/api/users" Accept: wildcard "*json*") of tenant "typo-1": url differs (expected equal "/api/users", got "/api/usres")"#)

        // The journal, through the client.
        let unmatched = try catbird.unmatched()
        XCTAssertEqual(unmatched.requests.map(\.url), ["/api/usres"])
        let nearMiss = try XCTUnwrap(unmatched.requests.first?.nearMisses?.first)
        XCTAssertEqual(nearMiss.mockId, mockId)
        XCTAssertEqual(nearMiss.pattern, users)
        XCTAssertEqual(nearMiss.mismatches.map(\.label), ["url"])
        XCTAssertEqual(nearMiss.mismatches.first?.expected, #"equal "/api/users""#)
        XCTAssertEqual(nearMiss.mismatches.first?.actual, "/api/usres")
        XCTAssertEqual(try catbird.requests().requests.first?.nearMisses?.first, nearMiss, "the journal listing carries it too")

        // The assertion: its message, then the failure XCTest records.
        let message = try XCTUnwrap(try catbird.requestedMismatch(users, times: 1))
        let lines = message.components(separatedBy: "\n")
        let entryID = try XCTUnwrap(unmatched.requests.first?.id)
        XCTAssertEqual(lines, [
            #"expected 1 request matching GET equal "/api/users" Accept: wildcard "*json*" in tenant "typo-1", found 0"#,
            "matching requests: none",
            "requests no mock answered (latest 1):",
            "  #\(entryID) GET /api/usres → 404",
            #"    closest: mock \#(mockId) (GET equal "/api/users" Accept: wildcard "*json*") of tenant "typo-1": url differs (expected equal "/api/users", got "/api/usres")"#,
        ])
        captured = []
        catbird.assertRequested(users)
        let failures = captured ?? []
        captured = nil
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.contains(message) ?? false, failures.first ?? "no failure recorded")
        XCTAssertFalse(failures.first?.contains("is not equal to") ?? true)

        // Once the app sends the right request, the assertion passes and lists nothing.
        XCTAssertEqual(try server.appRequest("GET", "/api/users", parallelId: "typo-1", headers: [("Accept", "application/json")]).status, 200)
        XCTAssertNil(try catbird.requestedMismatch(users, times: 1))
        catbird.assertRequested(users, times: 1)
        let twice = try XCTUnwrap(try catbird.requestedMismatch(users, times: 2))
        XCTAssertTrue(twice.hasPrefix(#"expected 2 requests matching GET equal "/api/users" Accept: wildcard "*json*" in tenant "typo-1", found 1"#), twice)
        XCTAssertTrue(twice.contains("matching requests:\n  #"), twice)
    }

    /// Regression (try6a F11): a mock `POST /b` with body regexp `(.*a){20}` and a body of
    /// 100,000 `a` (which the expression does match, given time) got a 404 whose near miss said
    /// `"verdict":"differs"` and whose reason began "body differs": the author was told the
    /// expression was wrong, though it was never finished. Now `skipped`, "not evaluated", and
    /// the client decodes it.
    /// A negative `times` is refused by the client, naming it, not reported as "expected -1
    /// requests …, found 0" (tester finding tester22a-F13's nit).
    /// tester48c-F8, its mock and requests: a mock with a `limit` of 2 and three requests; the
    /// third's 404 said the mock was used up, the failure said "no mocks to compare with".
    func testARequestAfterAMockWasUsedUpQuotesThe404sReason() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("used-up")
        let limited = RequestPattern(method: .GET, url: "/limited")
        try catbird.send(.update(limited, ResponseMock(status: 200, body: Data("ok".utf8), limit: 2)))
        let statuses = try (0..<3).map { _ in try server.appRequest("GET", "/limited", parallelId: "used-up").status }
        XCTAssertEqual(statuses, [200, 200, 404])
        let message = try XCTUnwrap(try catbird.requestedMismatch(limited, times: 2))
        XCTAssertTrue(message.contains("expected 2 requests matching GET equal \"/limited\" in tenant \"used-up\", found 3"), message)
        XCTAssertTrue(message.contains("matches it but was used up by its limit of 2"), message)
        XCTAssertFalse(message.contains("no mocks to compare with"), message)
    }

    /// tester48c-F11: against a server that is not running, the failure was an `NSError` dump
    /// (`Error Domain=NSURLErrorDomain Code=-1004 "(null)"UserInfo={…}`) with no hint; it now
    /// names the cause, the URL and how to start the server.
    func testAServerThatIsNotRunningFailsWithAReadableLine() throws {
        let server = try TestServer()
        let url = server.baseURL
        server.removeFiles()  // stops it
        let catbird = Catbird(url: url, parallelId: "down")
        captured = []
        catbird.assertRequested(RequestPattern(method: .GET, url: "/x"))
        let failures = captured ?? []
        captured = nil
        XCTAssertEqual(failures.count, 1, "\(failures)")
        let failure = failures.first ?? ""
        XCTAssertTrue(failure.contains(#"Catbird could not check the requests matching GET equal "/x": "#), failure)
        XCTAssertTrue(failure.contains("could not reach Catbird at \(url.absoluteString): is it running on that port"), failure)
        XCTAssertFalse(failure.contains("Error Domain="), failure)
    }

    func testANegativeTimesIsRefusedNamingIt() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "edge")
        let refused = assertCatbirdError(400, try catbird.requestedMismatch(RequestPattern(method: .GET, url: "/"), times: -1))
        XCTAssertEqual(refused?.reason, "'times' must be 0 or more, not -1 (refused by the client, nothing sent)")
    }

    func testABodyRegexpSkippedForTheBudgetIsShownAsNotEvaluated() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("f11")
        try catbird.send(.update(RequestPattern(method: .POST, url: "/b", body: .regexp("(.*a){20}")), ResponseMock(status: 200)))
        let answer = try server.appRequest("POST", "/b", parallelId: "f11", body: String(repeating: "a", count: 100_000))
        XCTAssertEqual(answer.status, 404, answer.text)
        let reason = try XCTUnwrap(answer.object["reason"] as? String)
        XCTAssertTrue(reason.contains(#": body not evaluated (expected regexp "(.*a){20}", got "aaaa"#), reason)
        XCTAssertTrue(reason.contains("ran out of the 100 ms evaluation budget"), reason)
        let fields = try XCTUnwrap(((answer.object["nearMisses"] as? [[String: Any]])?.first)?["fields"] as? [[String: Any]])
        XCTAssertEqual(fields.map { $0["verdict"] as? String }, ["match", "match", "skipped"], "\(fields)")

        let nearMiss = try XCTUnwrap(try catbird.unmatched().requests.first?.nearMisses?.first, "the client decodes the verdict")
        XCTAssertEqual(nearMiss.fields.map(\.verdict), [.match, .match, .skipped])
        XCTAssertEqual(nearMiss.mismatches.map(\.label), ["body"])
    }

    func testUnmatchedAsyncAndAssertRequestedWithABodyMatcher() async throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird()
        let login = RequestPattern(method: .POST, url: "/login", body: .jsonPath("$.login", equalTo: "john"))
        try await catbird.send(.update(login, ResponseMock(status: 200)))
        _ = try server.appRequest("POST", "/login", body: #"{"login":"jon"}"#)
        let page = try await catbird.unmatched()
        XCTAssertEqual(page.requests.first?.nearMisses?.first?.mismatches.map(\.label), ["body"])
        let message = try XCTUnwrap(try catbird.requestedMismatch(login, times: 1))
        XCTAssertTrue(message.contains(#"body differs (expected jsonPath "$.login" equalTo "john", got "{\"login\":\"jon\"}")"#), message)
        XCTAssertTrue(message.contains("in the default tenant, found 0"), message)
    }

    /// Regression (try9a F12): the app's `GET /api/users` went to the default tenant (no
    /// `X-Catbird-Parallel-Id`, the usual slip after a migration) and the message said only
    /// `found 0`, `matching requests: none`, `requests no mock answered: none`: only the 404
    /// sent to the app named the cause.
    func testAShortCountNamesTheDefaultTenantsMatchingRequests() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("swift-2")
        let users = RequestPattern(method: .GET, url: "/api/users")
        try catbird.send(.update(users, ResponseMock(status: 200, body: Data("[]".utf8))))
        XCTAssertEqual(try server.appRequest("GET", "/api/users").status, 404, "sent without the parallel id")
        let entryID = try XCTUnwrap(try server.catbird().requests().requests.first?.id)
        let message = try XCTUnwrap(try catbird.requestedMismatch(users, times: 1))
        XCTAssertEqual(message.components(separatedBy: "\n"), [
            #"expected 1 request matching GET equal "/api/users" in tenant "swift-2", found 0"#,
            "note: the default tenant has a request matching it, sent without X-Catbird-Parallel-Id: #\(entryID) GET /api/users → 404; "
                + #"is the app sending its parallel id ("swift-2")?"#,
            "matching requests: none",
            "requests no mock answered: none",
        ])
        // Asked in the default tenant itself, or with the count right, there is no such note.
        XCTAssertFalse(try XCTUnwrap(try server.catbird().requestedMismatch(users, times: 2)).contains("note:"))
        XCTAssertEqual(try server.appRequest("GET", "/api/users", parallelId: "swift-2").status, 200)
        XCTAssertNil(try catbird.requestedMismatch(users, times: 1))
    }

    /// Regression (try9a F5): the mock answered an upload whose `NEEDLE` lies past the journal's
    /// 64 KiB, and the assertion failed with "found 0" and no word of the cut body.
    func testAMatchLeftOutByTheJournalsCutBodyIsNamed() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = server.catbird("big")
        let upload = RequestPattern(method: .PUT, url: "/up", body: .contains("NEEDLE"))
        try catbird.send(.update(upload, ResponseMock(status: 200)))
        XCTAssertEqual(try server.appRequest("PUT", "/up", parallelId: "big", body: String(repeating: "x", count: 100_000) + "NEEDLE").status, 200)
        let entryID = try XCTUnwrap(try catbird.requests().requests.first?.id)
        XCTAssertEqual(try catbird.count(matching: upload), 0)
        let message = try XCTUnwrap(try catbird.requestedMismatch(upload, times: 1))
        XCTAssertEqual(Array(message.components(separatedBy: "\n").prefix(2)), [
            #"expected 1 request matching PUT equal "/up" body contains "NEEDLE" in tenant "big", found 0"#,
            "note: 1 journaled request (#\(entryID), 65536 of its 100006 body bytes kept) matches all but the body pattern, "
                + "which was tested on the part of the body the journal kept: raise --journal-body-limit (a body its client did not finish, "
                + "its entry's problem says so, has no more)",
        ])
    }
}

/// A short count names the tenant's requests that almost match, whatever answered them
/// (tester finding T18C-F4: a wildcard mock answered `GET /api/users?page=1`, and asserting
/// `GET equal "/api/users"` listed no matching request and no near miss).
final class AssertRequestedSimilarTests: CatbirdTestCase {
    func testARequestABroaderMockAnsweredIsNamedWithItsQuery() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let catbird = Catbird(url: server.baseURL, parallelId: "t18c-assert2")
        try catbird.send(.update(
            RequestPattern(method: .GET, url: PatternMatch.wildcard("/api/users*")), ResponseMock(status: 200, body: Data("[]".utf8))))
        XCTAssertEqual(try server.appRequest("GET", "/api/users?page=1", parallelId: "t18c-assert2").status, 200)
        try catbird.send(.update(RequestPattern(method: .POST, url: PatternMatch.wildcard("/api/*")), ResponseMock(status: 200)))
        XCTAssertEqual(try server.appRequest("POST", "/api/users", parallelId: "t18c-assert2").status, 200)
        let ids = try catbird.requests().requests.map(\.id)
        XCTAssertEqual(ids.count, 2)

        let message = try XCTUnwrap(try catbird.requestedMismatch(RequestPattern(method: .GET, url: "/api/users"), times: 1))
        XCTAssertEqual(message.components(separatedBy: "\n"), [
            #"expected 1 request matching GET equal "/api/users" in tenant "t18c-assert2", found 0"#,
            "matching requests: none",
            "requests no mock answered: none",
            #"other requests whose URL contains "/api/users" (first 2, whatever answered them):"#,
            "  #\(ids[0]) GET /api/users?page=1 → 200",
            #"    url differs (expected equal "/api/users", got "/api/users?page=1"): only the query, which the pattern's URL must match too"#,
            "  #\(ids[1]) POST /api/users → 200",
            "    method differs (expected GET, got POST)",
        ])
        // With the count right, nothing is listed.
        XCTAssertNil(try catbird.requestedMismatch(RequestPattern(method: .GET, url: PatternMatch.wildcard("/api/users?*")), times: 1))
    }
}
