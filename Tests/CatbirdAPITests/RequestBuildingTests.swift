import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What each call puts on the wire, captured: method, path, query, headers, body.
final class RequestBuildingTests: CatbirdTestCase {
    func testEveryCallCarriesTheParallelIdAndTheRightRoute() throws {
        let capture = try CaptureServer(status: 200, body: "{}")
        defer { capture.stop() }
        let catbird = Catbird(url: capture.url, parallelId: "a/b c?%")
        _ = try? catbird.mocks()
        _ = try? catbird.requests(since: 5, limit: 10, method: "GET", url: "/a+b?c=d&e", status: 404, answeredBy: .unanswered)
        _ = try? catbird.count(matching: RequestPattern(method: .GET, url: "/x"))
        _ = try? catbird.clearJournal()
        _ = try? catbird.sql("SELECT ?", params: ["x"], maxRows: 3)
        _ = try? catbird.dropTenant()

        let requests = capture.requests
        XCTAssertEqual(requests.map { "\($0.method) \($0.target)" }, [
            "GET /catbird/api/mocks",
            "GET /catbird/api/requests?since=5&limit=10&method=GET&url=%2Fa%2Bb%3Fc%3Dd%26e&status=404&answeredBy=none",
            "POST /catbird/api/requests/count",
            "DELETE /catbird/api/requests",
            "POST /catbird/api/sql",
            "DELETE /catbird/api/tenants/a%2Fb%20c%3F%25",
        ])
        for request in requests {
            XCTAssertEqual(request.header("X-Catbird-Parallel-Id"), "a/b c?%", request.target)
            XCTAssertEqual(request.header("Content-Type"), request.body.isEmpty ? nil : "application/json", request.target)
        }
        guard requests.count == 6 else { return }
        XCTAssertEqual(try canonicalJSON(requests[2].body), #"{"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"\/x"}}}"#)
        XCTAssertEqual(try canonicalJSON(requests[4].body), #"{"maxRows":3,"params":["x"],"sql":"SELECT ?"}"#)
    }

    func testNoParallelIdHeaderWithoutParallelIdAndBasePathIsKept() throws {
        let capture = try CaptureServer(status: 200, body: #"{"tenant":"","mocks":[]}"#)
        defer { capture.stop() }
        let catbird = Catbird(url: capture.url.appendingPathComponent("prefix/"))
        XCTAssertEqual(try catbird.mocks(), [])
        _ = try? catbird.sql("SELECT 1")
        let requests = capture.requests
        XCTAssertEqual(requests.map(\.target), ["/prefix/catbird/api/mocks", "/prefix/catbird/api/sql"])
        XCTAssertTrue(requests.allSatisfy { $0.header("X-Catbird-Parallel-Id") == nil })
        XCTAssertEqual(try canonicalJSON(try XCTUnwrap(requests.last).body), #"{"params":[],"sql":"SELECT 1"}"#, "maxRows left out")
    }

    /// A non-JSON error body becomes the reason; an unreadable 2xx answer is a CatbirdError naming the URL.
    func testErrorsFromOtherServers() throws {
        let failing = try CaptureServer(status: 502, body: "bad gateway\n")
        defer { failing.stop() }
        let error = assertCatbirdError(502, try Catbird(url: failing.url).send(.removeAll))
        XCTAssertEqual(error?.reason, "bad gateway")
        // Tester finding tester44c-F8: a 1 MiB error page went whole into the reason.
        let page = "<html><body><h1>502 Bad Gateway</h1>" + String(repeating: "x", count: 1_048_576 - 49) + "</body></html>"
        let huge = try CaptureServer(status: 502, body: page)
        defer { huge.stop() }
        let cut = assertCatbirdError(502, try Catbird(url: huge.url).count(matching: RequestPattern(method: .GET, url: "/x")))
        XCTAssertEqual(cut?.reason?.hasPrefix("<html><body><h1>502 Bad Gateway</h1>xxx"), true)
        XCTAssertEqual(cut?.reason?.hasSuffix("… (\(page.utf8.count) bytes in all; not Catbird's error JSON)"), true)
        XCTAssertLessThan(cut?.reason?.utf8.count ?? .max, 600)

        let empty = try CaptureServer(status: 404, body: "")
        defer { empty.stop() }
        XCTAssertNil(assertCatbirdError(404, try Catbird(url: empty.url).mocks())?.reason)
        // Only Catbird's own 404 is "no such tenant" (tester finding tester44c-F2).
        assertCatbirdError(404, try Catbird(url: empty.url, parallelId: "p").dropTenant())
        let noTenant = try CaptureServer(status: 404, body: #"{"error":true,"reason":"no tenant \"p\""}"#)
        defer { noTenant.stop() }
        XCTAssertFalse(try Catbird(url: noTenant.url, parallelId: "p").dropTenant(), "Catbird's 404 → false")

        let garbage = try CaptureServer(status: 200, body: "not json")
        defer { garbage.stop() }
        let unreadable = assertCatbirdError(200, try Catbird(url: garbage.url).mocks())
        XCTAssertTrue(unreadable?.reason?.contains("\(garbage.url.absoluteString)/catbird/api/mocks") == true, "\(String(describing: unreadable))")
        let sent = assertCatbirdError(200, try Catbird(url: garbage.url).send(.removeAll))
        XCTAssertTrue(sent?.reason?.contains("is not Catbird's answer (which is 201 or 204)") == true, "\(String(describing: sent))")
    }

    /// Another HTTP server on the client's port answering 200 with HTML (a dev server's SPA
    /// fallback) is a ``CatbirdError`` naming the URL, the status, the body's start and the
    /// likely cause, not a bare `DecodingError` (tester finding tester22a-F17).
    func testAnotherServerAnswering200HTMLIsNamedWithItsURLAndBody() throws {
        let other = try CaptureServer(status: 200, body: "<html>hi</html>")
        defer { other.stop() }
        let catbird = Catbird(url: other.url, parallelId: "x")
        let error = assertCatbirdError(200, try catbird.mocks())
        let reason = error?.reason ?? ""
        XCTAssertTrue(reason.contains("GET \(other.url.absoluteString)/catbird/api/mocks (status 200"), reason)
        XCTAssertTrue(reason.contains(#"it begins "<html>hi</html>""#), reason)
        XCTAssertTrue(reason.contains("Is \(other.url.absoluteString) a Catbird server"), reason)
        // tester48c-F6: it read "Catbird answered 200" of an answer it said was not Catbird's.
        XCTAssertTrue(error.map { "\($0)" }?.hasPrefix("the server at \(other.url.absoluteString) answered 200 (") == true,
                      error.map { "\($0)" } ?? "")
    }

    /// tester48c-F5 and F6, their calls: a dev server's 404 HTML page read "Catbird answered 404
    /// (Not Found): <the page>" (a missing route, not a wrong port), and calls the client refused
    /// itself, nothing sent, read "Catbird answered 400". Each now says who answered.
    func testTheErrorSaysWhoAnswered() throws {
        let missing = try CaptureServer(status: 404, body: "<html><body>My dev server</body></html>")
        defer { missing.stop() }
        let page = assertCatbirdError(404, try Catbird(url: missing.url, parallelId: "x").mocks())
        // The status phrase is the platform's (HTTPURLResponse.localizedString).
        let phrase = HTTPURLResponse.localizedString(forStatusCode: 404)
        XCTAssertEqual(page.map { "\($0)" }, "the server at \(missing.url.absoluteString) answered 404 (\(phrase)), which is not "
            + "Catbird's error JSON (is it a Catbird server, its --port?): <html><body>My dev server</body></html>")
        XCTAssertEqual(page?.reason, "<html><body>My dev server</body></html>", "the reason is the body's text, as documented")
        let refused = assertCatbirdError(400, try Catbird(url: missing.url).dropTenant(id: ""))
        XCTAssertTrue(refused.map { "\($0)" }?.hasPrefix("the Catbird client refused the call: dropTenant(id: \"\") names no tenant") == true,
                      refused.map { "\($0)" } ?? "")
        XCTAssertTrue(missing.requests.allSatisfy { $0.target.hasSuffix("/mocks") }, "the refused call sent nothing")
        // Catbird's own answer still reads as Catbird's.
        let server = try TestServer()
        defer { server.removeFiles() }
        let bad = assertCatbirdError(400, try server.catbird().count(matching: RequestPattern(method: .GET, url: PatternMatch.regexp("(("))))
        XCTAssertTrue(bad.map { "\($0)" }?.hasPrefix("Catbird answered 400 (") == true, bad.map { "\($0)" } ?? "")
    }

    /// Tester finding tester44c-F2, its servers: a dev server answering every request with
    /// `200` HTML, and one answering `404` HTML. `count` threw as documented, but `send`, the
    /// call every test makes first, `dropTenant()` and `dropTenant(id:)` reported success: the
    /// test's mocks were never set up, and it failed later on the app's side.
    func testSendAndTenantDropsThrowForAServerThatIsNotCatbird() throws {
        let html = try CaptureServer(status: 200, body: "<!doctype html><html>dev server</html>")
        defer { html.stop() }
        let catbird = Catbird(url: html.url, parallelId: "x")
        let update = CatbirdAction.update(RequestPattern(method: .GET, url: "/a"), ResponseMock(status: 200))
        for (what, call) in [
            ("send update", { try catbird.send(update) }), ("send removeAll", { try catbird.send(.removeAll) }),
            ("dropTenant", { _ = try catbird.dropTenant() }), ("dropTenant(id:)", { _ = try Catbird(url: html.url).dropTenant(id: "x") }),
        ] as [(String, () throws -> Void)] {
            let error = assertCatbirdError(200, try call())
            XCTAssertTrue(error?.reason?.contains("Is \(html.url.absoluteString) a Catbird server") == true, "\(what): \(String(describing: error))")
        }
        let missing = try CaptureServer(status: 404, body: "<html>Not Found</html>")
        defer { missing.stop() }
        assertCatbirdError(404, try Catbird(url: missing.url, parallelId: "x").dropTenant())
        assertCatbirdError(404, try Catbird(url: missing.url).dropTenant(id: "x"))
    }

    /// Cancelling the awaiting task cancels the request.
    func testAsyncCallIsCancellable() async throws {
        let silent = try CaptureServer(status: 0)
        defer { silent.stop() }
        let catbird = Catbird(url: silent.url)
        let task = Task { try await catbird.mocks() }
        let deadline = Date().addingTimeInterval(4)
        while silent.requests.isEmpty, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(silent.requests.count, 1, "the request is out and unanswered")
        let started = Date()
        task.cancel()
        do {
            let mocks = try await task.value
            XCTFail("expected a cancellation, got \(mocks)")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "cancelled, not timed out after 5 s")
    }
}
