import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// `--cors`: preflights answered, CORS headers on mocked, file and forwarded answers; on the
/// control routes for `--cors-origin`'s origins only (docs/files.md#cors).
final class CORSTests: XCTestCase {
    func testPreflightAndHeadersOnMockFileAndForwardedAnswers() throws {
        let upstream = try Upstream()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-cors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{}".utf8).write(to: directory.appendingPathComponent("file.json"))
        let server = try TestServer { settings in
            settings.cors = true
            settings.mocksDirectory = directory.path
            settings.redirectURL = upstream.baseURL
        }
        let client = try server.client()
        try E2E.addMock(client, url: "/mocked", body: "m")
        let origin = ("Origin", "http://app.test:3000")
        let preflight = try client.request("OPTIONS", "/mocked", headers: [
            origin, ("Access-Control-Request-Method", "PUT"), ("Access-Control-Request-Headers", "content-type, x-token"),
        ])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "http://app.test:3000")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "PUT")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Headers"), "content-type, x-token")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Credentials"), "true")
        for path in ["/mocked", "/file.json", "/echo/forwarded", "/missing-goes-upstream"] {
            let answer = try client.request("GET", path, headers: [origin])
            XCTAssertEqual(answer.status, 200, path)
            XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), "http://app.test:3000", path)
            XCTAssertEqual(answer.header("Vary"), "Origin", path)
        }
        XCTAssertNil(try client.request("GET", "/mocked").header("Access-Control-Allow-Origin"), "no Origin, no CORS fields")
        let plain = try TestServer()
        let notEnabled = try plain.client().request("OPTIONS", "/mocked", headers: [origin, ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(notEnabled.status, 404, "without --cors a preflight is an ordinary request")
    }

    /// A browser suite on another origin must set its mocks: the exact report was
    /// `OPTIONS /catbird/api/mocks` with `Origin: http://app.test` and
    /// `Access-Control-Request-Method: POST` answered 405 under `--cors`.
    func testTheControlRoutesAnswerPreflightsAndCarryTheHeaders() throws {
        let server = try TestServer { $0.corsOrigins = ["http://app.test"] }
        defer { server.removeFiles() }
        let client = try server.client()
        let origin = ("Origin", "http://app.test")
        let preflight = try client.request("OPTIONS", "/catbird/api/mocks", headers: [
            origin, ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "content-type, x-catbird-parallel-id"),
        ])
        XCTAssertEqual(preflight.status, 204, preflight.text)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "POST")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Headers"), "content-type, x-catbird-parallel-id")

        let shard = ("X-Catbird-Parallel-Id", "browser-1")
        let added = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/cors-mocked", body: Array("m".utf8)), headers: [origin, shard])
        XCTAssertEqual(added.status, 201, added.text)
        XCTAssertEqual(added.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(added.header("Access-Control-Allow-Credentials"), "true")
        XCTAssertEqual(added.header("Vary"), "Origin")
        XCTAssertEqual(try client.request("GET", "/cors-mocked", headers: [shard]).text, "m")
        // Answers that come later (run on a control pool) and errors carry them too.
        let count = try client.json("POST", "/catbird/api/requests/count", #"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/cors-mocked"}}}"#, headers: [origin, shard])
        XCTAssertEqual(JSONNumber.int(count.object["count"]), 1, count.text)
        XCTAssertEqual(count.header("Access-Control-Allow-Origin"), "http://app.test")
        let listed = try client.request("GET", "/catbird/api/requests", headers: [origin, shard])
        XCTAssertEqual(listed.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertTrue(listed.header("Access-Control-Expose-Headers")?.contains("Content-Type") == true, "\(listed.headers)")
        let refused = try client.json("POST", "/catbird/api/mocks", "{", headers: [origin])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.header("Access-Control-Allow-Origin"), "http://app.test")
        XCTAssertEqual(try E2E.journal(client, tenant: "browser-1").count, 1, "control requests and their preflights are not journaled")
        XCTAssertEqual(try E2E.journal(client, tenant: nil).count, 0, "the preflight without a parallel id is not journaled either")

        let plain = try TestServer()
        defer { plain.removeFiles() }
        let notEnabled = try plain.client().request("OPTIONS", "/catbird/api/mocks", headers: [origin, ("Access-Control-Request-Method", "POST")])
        XCTAssertEqual(notEnabled.status, 405, "without --cors the control routes answer no preflight")
        XCTAssertNil(try plain.client().request("GET", "/catbird/api/mocks", headers: [origin]).header("Access-Control-Allow-Origin"))
    }

    /// Refusals made before a route runs carried no CORS fields, so a browser saw them as
    /// network errors: a control upload over `--max-body-size` (413) and a parallel id that is
    /// not UTF-8 (400), control route or not.
    func testRefusalsCarryTheHeadersToo() throws {
        let server = try TestServer { settings in
            settings.corsOrigins = ["http://APP.test"]
            settings.maxBodySize = 64
        }
        defer { server.removeFiles() }
        let origin = ("Origin", "http://app.test")
        for path in ["/catbird/api/mocks", "/upload"] {
            let tooLarge = try server.client().request("POST", path, headers: [origin], body: Array(repeating: UInt8(ascii: "x"), count: 1000))
            XCTAssertEqual(tooLarge.status, 413, path)
            XCTAssertEqual(tooLarge.header("Access-Control-Allow-Origin"), "http://app.test", path)
            XCTAssertEqual(tooLarge.header("Vary"), "Origin", path)

            let raw = try server.client()
            try raw.send(raw: Array("GET \(path) HTTP/1.1\r\nHost: x\r\nOrigin: http://app.test\r\nX-Catbird-Parallel-Id: a".utf8) + [0xFF] + Array("\r\n\r\n".utf8))
            let notUTF8 = try raw.readResponse()
            XCTAssertEqual(notUTF8.status, 400, path)
            XCTAssertEqual(notUTF8.header("Access-Control-Allow-Origin"), "http://app.test", path)
        }
    }

    /// Regression (try6a F6): `catbird --admin-token s3cret --cors` answered
    /// `OPTIONS /catbird/api/tenants` with `Origin: http://evil.example` and
    /// `Access-Control-Request-Method: DELETE` 204 with `Access-Control-Allow-Origin: http://evil.example`
    /// and `Access-Control-Allow-Credentials: true`, and the journal was readable cross-origin: any
    /// page a developer opened could read every journal and, without the token, drop every
    /// tenant. Now `--cors` alone keeps other origins off the control routes (403, no CORS
    /// fields, the route not run) while still serving them the mocks.
    func testAnotherSitesPageMayNotUseTheControlRoutes() throws {
        let server = try TestServer { settings in
            settings.cors = true
            settings.adminToken = "s3cret"
        }
        defer { server.removeFiles() }
        let client = try server.client()
        let evil = ("Origin", "http://evil.example")
        try E2E.addMock(client, tenant: "shard-1", url: "/mocked", body: "m")
        let preflight = try client.request("OPTIONS", "/catbird/api/tenants", headers: [evil, ("Access-Control-Request-Method", "DELETE")])
        XCTAssertEqual(preflight.status, 403, preflight.text)
        XCTAssertNil(preflight.header("Access-Control-Allow-Origin"))
        XCTAssertNil(preflight.header("Access-Control-Allow-Credentials"))
        XCTAssertEqual(
            preflight.text,
            #"{"error":true,"reason":"the origin http://evil.example may not use the control routes: give --cors-origin http://evil.example to let a test suite there set mocks (docs/files.md#cors)"}"#)
        let shard = ("X-Catbird-Parallel-Id", "shard-1")
        XCTAssertEqual(try client.request("GET", "/mocked", headers: [shard]).status, 200)
        let journal = try client.request("GET", "/catbird/api/requests", headers: [evil, shard])
        XCTAssertEqual(journal.status, 403, journal.text)
        XCTAssertFalse(journal.text.contains("/mocked"), journal.text)
        // A cross-site form POST needs no preflight: refused before its route runs.
        let cleared = try client.request("DELETE", "/catbird/api/requests", headers: [evil, shard])
        XCTAssertEqual(cleared.status, 403, cleared.text)
        let added = try client.json("POST", "/catbird/api/mocks", E2E.updateAction(url: "/planted", body: Array("x".utf8)), headers: [evil, shard])
        XCTAssertEqual(added.status, 403, added.text)
        XCTAssertEqual(try client.request("GET", "/planted", headers: [shard]).status, 404, "the refused POST added no mock")
        XCTAssertEqual(try E2E.journal(client, tenant: "shard-1").count, 2, "the journal was not cleared")

        // The mocks still answer any origin under --cors alone, with credentials.
        let mocked = try client.request("GET", "/mocked", headers: [evil, shard])
        XCTAssertEqual(mocked.status, 200)
        XCTAssertEqual(mocked.header("Access-Control-Allow-Origin"), "http://evil.example")
        XCTAssertEqual(mocked.header("Access-Control-Allow-Credentials"), "true")
        // The server's own origin (the web page) and a client sending no Origin still reach the control routes.
        let own = try client.request("GET", "/catbird/api/requests", headers: [("Origin", "http://127.0.0.1"), shard])
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests", headers: [shard]).status, 200)
    }

    /// Regression (T11-F8): `Origin: null` (a sandboxed iframe, a `file://` page) was told to give
    /// `--cors-origin null`, which the command line refuses (exit 2). The 403 now suggests the
    /// option only with a value it accepts.
    /// Tester finding tester66b-F2, its preflight: what a browser sends before a shard's
    /// `fetch('/api/orders?session=…', {headers: {'X-Catbird-Parallel-Id': 'shard-7'}})` carries
    /// no parallel id (only its name, in `Access-Control-Request-Headers`), so it was journaled
    /// in the default tenant, which every client reads, with the shard's query (a token). The
    /// query is left out there now, and the `problem` says why; a preflight for a request that
    /// carries no parallel id (a default-tenant page) keeps its url.
    func testAShardsPreflightLeavesItsQueryOutOfTheDefaultTenantsJournal() throws {
        let server = try TestServer { $0.cors = true }
        defer { server.removeFiles() }
        let client = try server.client()
        let origin = ("Origin", "http://localhost:3000")
        let shard = try client.request("OPTIONS", "/api/orders?session=SECRET-of-shard7", headers: [
            origin, ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "content-type, x-catbird-parallel-id"),
        ])
        XCTAssertEqual(shard.status, 204, shard.text)
        let own = try client.request("OPTIONS", "/api/page?v=2", headers: [
            origin, ("Access-Control-Request-Method", "PUT"), ("Access-Control-Request-Headers", "content-type"),
        ])
        XCTAssertEqual(own.status, 204, own.text)
        let entries = try E2E.journal(client, tenant: nil, once: 2)
        XCTAssertEqual(entries.map { $0["url"] as? String }, ["/api/orders", "/api/page?v=2"])
        XCTAssertEqual(
            entries.first?["problem"] as? String,
            "its query left out of the url: a browser's CORS preflight carries no X-Catbird-Parallel-Id (it names the field in "
                + "Access-Control-Request-Headers; the value comes with the request after it), so its tenant is unknown and it is "
                + "journaled in the default tenant's journal, which every client reads (docs/files.md#cors)")
        XCTAssertNil(entries.last?["problem"] as? String)
        XCTAssertFalse(try client.request("GET", "/catbird/api/requests").text.contains("SECRET"))
    }

    func testA403SuggestsOnlyAnOriginTheCommandLineAccepts() throws {
        let server = try TestServer { $0.cors = true }
        defer { server.removeFiles() }
        let client = try server.client()
        for (origin, hint) in [
            (
                "null",
                "a page with no origin of its own (a sandboxed iframe, a file:// page) sends Origin: null, which --cors-origin cannot "
                    + "list; only --cors-origin '*' lets such a page set mocks (docs/files.md#cors)"
            ),
            ("http://a.test/x", "it is not an origin --cors-origin can list (scheme, host, optional port: docs/files.md#cors)"),
        ] {
            let refused = try client.request("GET", "/catbird/api/requests", headers: [("Origin", origin)])
            XCTAssertEqual(refused.status, 403, refused.text)
            XCTAssertEqual(refused.object["reason"] as? String, "the origin \(origin) may not use the control routes: \(hint)")
        }
        XCTAssertFalse(CatbirdServer.Settings.isListableOrigin("null"), "the rule the command line applies")
        XCTAssertTrue(CatbirdServer.Settings.isListableOrigin("http://evil.example"))
    }

    /// Tester finding T14B-F5: `--cors-origin http://a.com:80` was kept as given, and a browser,
    /// which leaves its scheme's default port out of `Origin`, sent `Origin: http://a.com` and
    /// got 403 from the control routes. A listed origin's default port (80 for http, 443 for
    /// https) is dropped, so it matches what browsers send; another port stays.
    func testAListedOriginsDefaultPortIsDropped() throws {
        let server = try TestServer { $0.corsOrigins = ["http://a.com:80", "HTTPS://B.COM:443", "http://c.com:443"] }
        defer { server.removeFiles() }
        let client = try server.client()
        for origin in ["http://a.com", "https://b.com", "http://c.com:443"] {
            let answer = try client.request("GET", "/catbird/api/tenants", headers: [("Origin", origin)])
            XCTAssertEqual(answer.status, 200, "\(origin): \(answer.text)")
            XCTAssertEqual(answer.header("Access-Control-Allow-Origin"), origin)
        }
        E2E.assertError(try client.request("GET", "/catbird/api/tenants", headers: [("Origin", "http://c.com")]), status: 403)
    }

    /// With `--cors-origin` only the listed origins get CORS fields, on every route; `*` is any
    /// origin on every route (the old `--cors`).
    func testListedOriginsAndTheWildcard() throws {
        let server = try TestServer { $0.corsOrigins = ["http://localhost:3000"] }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, url: "/mocked", body: "m")
        let listed = try client.request("GET", "/mocked", headers: [("Origin", "http://localhost:3000")])
        XCTAssertEqual(listed.header("Access-Control-Allow-Origin"), "http://localhost:3000")
        let unlisted = try client.request("GET", "/mocked", headers: [("Origin", "http://evil.example")])
        XCTAssertEqual(unlisted.status, 200)
        XCTAssertNil(unlisted.header("Access-Control-Allow-Origin"), "an unlisted origin gets no CORS fields on a mock")
        let preflight = try client.request("OPTIONS", "/mocked", headers: [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "PUT")])
        XCTAssertEqual(preflight.status, 404, "an unlisted origin's preflight is an ordinary request")
        let control = try client.request("OPTIONS", "/catbird/api/tenants", headers: [("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "DELETE")])
        XCTAssertEqual(control.status, 204, control.text)
        XCTAssertEqual(control.header("Access-Control-Allow-Origin"), "http://localhost:3000")

        let any = try TestServer { $0.corsOrigins = ["*"] }
        defer { any.removeFiles() }
        let anyPreflight = try any.client().request(
            "OPTIONS", "/catbird/api/tenants", headers: [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "DELETE")])
        XCTAssertEqual(anyPreflight.status, 204, anyPreflight.text)
        XCTAssertEqual(anyPreflight.header("Access-Control-Allow-Origin"), "http://evil.example")
    }
}
