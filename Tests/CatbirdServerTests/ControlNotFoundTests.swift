import CatbirdTestSupport
import Foundation
import XCTest

/// A path under `/catbird/` that no control route serves gets a 404 saying what was asked and
/// where the routes are listed; an entry id that is not a number says so (try5 finding 8d:
/// all of these answered a bare `{"error":true,"reason":"Not Found"}`).
final class ControlNotFoundTests: ServerTestCase {
    func testAnUnknownControlPathNamesTheRequestAndTheOpenAPIDocument() throws {
        for (method, path) in [
            ("POST", "/catbird/api/mock"), ("GET", "/catbird/api/requests/75/"), ("GET", "/catbird/api/requests/75/other/body"),
        ] {
            let answer = try client.request(method, path, body: method == "POST" ? Array("{}".utf8) : nil)
            XCTAssertEqual(answer.status, 404, "\(method) \(path): \(answer.text)")
            let reason = answer.object["reason"] as? String ?? ""
            XCTAssertTrue(reason.contains("no control route \(method) \"\(path)\""), "\(method) \(path): \(reason)")
            XCTAssertTrue(reason.contains("GET /catbird/api/openapi.json"), reason)
        }
    }

    /// Tester finding T19B-F19, the exact requests: an unknown control route got no "did you
    /// mean", unlike an unknown key. The nearest route (method and path, by edit distance, with
    /// the `api/` after `/catbird/` left out on both sides) is named when it is close; the
    /// sentence is kept, and a path near none gets none.
    func testAnUnknownControlPathNamesTheNearestRoute() throws {
        let removeAll = Array(#"{"type":"removeAll"}"#.utf8)
        for (method, path, meant) in [
            ("POST", "/catbird/api/mock", "POST /catbird/api/mocks"), ("GET", "/catbird/api/request", "GET /catbird/api/requests"),
            ("POST", "/catbird/mocks", "POST /catbird/api/mocks"), ("GET", "/catbird/mocks", "GET /catbird/api/mocks"),
            ("GET", "/catbird/api/version", "GET /catbird/version"),
        ] {
            let answer = try client.request(
                method, path, headers: method == "POST" ? [("Content-Type", "application/json")] : [], body: method == "POST" ? removeAll : nil)
            XCTAssertEqual(answer.status, 404, "\(method) \(path): \(answer.text)")
            XCTAssertEqual(
                answer.object["reason"] as? String,
                "no control route \(method) \"\(path)\" (did you mean \(meant)?); the control routes are listed in GET /catbird/api/openapi.json")
        }
        // Regression (tester finding tester68a-F4, its requests): the `api/` in another case
        // was counted as edits, so these were offered nothing.
        for (path, meant) in [
            ("/catbird/API/health", "GET /catbird/api/health"), ("/catbird/Api/mocks", "GET /catbird/api/mocks"),
            ("/catbird/aPI/requests", "GET /catbird/api/requests"),
        ] {
            let answer = try client.request("GET", path)
            XCTAssertEqual(answer.status, 404, "\(path): \(answer.text)")
            XCTAssertEqual(
                answer.object["reason"] as? String,
                "no control route GET \"\(path)\" (did you mean \(meant)?); the control routes are listed in GET /catbird/api/openapi.json")
        }
        let far = try client.request("GET", "/catbird/api/nope")
        XCTAssertEqual(
            far.object["reason"] as? String, #"no control route GET "/catbird/api/nope"; the control routes are listed in GET /catbird/api/openapi.json"#)
    }

    /// Regression (tester finding tester30a-F2, its requests): a trailing `/` or a typo after
    /// `/catbird/api/requests/` (`POST …/requests/count/`, `…/counts`) answered `405 Allow: GET,
    /// HEAD`, the journal entry route's methods, and that GET then answered 400 "not a journal
    /// id"; `GET /catbird/api/tenants/` was offered only `DELETE`; `GET …/requests/5/` got no
    /// "did you mean". A path that does not have a
    /// parameter route's shape no longer takes its methods: the 404 names the route meant.
    /// Tester finding tester30a-F7, its requests: the "did you mean" never named a route with an
    /// id, and for `DELETE /catbird/api/mock/5` named the route that removes every tenant's
    /// mocks; it now names the id route, filled with the request's id.
    func testAPathOfNoRoutesShapeIsA404NamingTheRouteMeantWithItsId() throws {
        let count = Array(#"{"pattern":{"method":"GET","url":{"kind":"equal","value":"/x"}}}"#.utf8)
        for (method, path, meant) in [
            ("POST", "/catbird/api/requests/count/", "POST /catbird/api/requests/count"),
            ("POST", "/catbird/api/requests/wait/", "POST /catbird/api/requests/wait"),
            ("POST", "/catbird/api/requests/find/", "POST /catbird/api/requests/find"),
            ("POST", "/catbird/api/requests/counts", "POST /catbird/api/requests/count"),
            ("POST", "/catbird/api/requests/cont", "POST /catbird/api/requests/count"),
            ("GET", "/catbird/api/tenants/", "GET /catbird/api/tenants"),
            ("GET", "/catbird/api/requests/5/", "GET /catbird/api/requests/5"),
            ("DELETE", "/catbird/api/mocks/5/", "DELETE /catbird/api/mocks/5"),
            ("DELETE", "/catbird/api/mock/5", "DELETE /catbird/api/mocks/5"),
            ("DELETE", "/catbird/api/tenant/shard-1", "DELETE /catbird/api/tenants/shard-1"),
            ("DELETE", "/catbird/api/Tenants/shard-1", "DELETE /catbird/api/tenants/shard-1"),
            ("GET", "/catbird/api/requests/98/Response/body", "GET /catbird/api/requests/98/response/body"),
            ("GET", "/catbird/api/requests/98/respone/body", "GET /catbird/api/requests/98/response/body"),
            ("GET", "/catbird/api/Requests/98", "GET /catbird/api/requests/98"),
            ("GET", "/catbird/api/request/98", "GET /catbird/api/requests/98"),
        ] {
            let answer = try client.request(
                method, path, headers: method == "POST" ? [("Content-Type", "application/json")] : [], body: method == "POST" ? count : nil)
            XCTAssertEqual(answer.status, 404, "\(method) \(path): \(answer.text)")
            XCTAssertNil(answer.header("Allow"), "\(method) \(path)")
            XCTAssertEqual(
                answer.object["reason"] as? String,
                "no control route \(method) \"\(path)\" (did you mean \(meant)?); the control routes are listed in GET /catbird/api/openapi.json")
        }
        // A path of the route's shape with another method is still its 405.
        for (method, path, allow) in [("POST", "/catbird/api/requests/5", "GET, HEAD"), ("GET", "/catbird/api/mocks/5", "DELETE")] {
            let answer = try client.request(method, path, headers: [("Content-Type", "application/json")], body: method == "POST" ? count : nil)
            XCTAssertEqual(answer.status, 405, "\(method) \(path): \(answer.text)")
            XCTAssertEqual(answer.header("Allow"), allow, "\(method) \(path)")
        }
        // A long id is shown as its placeholder.
        let long = String(repeating: "t", count: 65)
        let reason = try client.request("DELETE", "/catbird/api/tenant/\(long)").object["reason"] as? String ?? ""
        XCTAssertTrue(
            reason.hasSuffix("(did you mean DELETE /catbird/api/tenants/{name}?); the control routes are listed in GET /catbird/api/openapi.json"),
            reason)
        // An id of the wrong shape on the route's own path is its 400, which says what an id is.
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks/x").status, 400)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/tenants/").status, 400)
        // Regression (tester finding tester30c-F1): a tenant id holding a `/` was cut there,
        // and the 404 suggested dropping tenant "a".
        let slash = try client.request("DELETE", "/catbird/api/tenants/a/b")
        XCTAssertEqual(slash.status, 400, slash.text)
        XCTAssertTrue((slash.object["reason"] as? String ?? "").contains("write a '/' inside one as %2F"), slash.text)
        XCTAssertFalse(slash.text.contains("did you mean"), slash.text)
    }

    /// tester48b-F5(a), its paths: WireMock's `…/requests/unmatched/near-misses` and
    /// `GET …/requests/find/1` were told `"unmatched" is not a journal id`; a path under an exact
    /// route's is its 404 naming that route (never a parent of an id route, never a DELETE).
    func testAPathUnderAnExactRouteIsA404NamingIt() throws {
        for (method, path, meant) in [
            ("GET", "/catbird/api/requests/unmatched/near-misses", "GET /catbird/api/requests/unmatched"),
            ("GET", "/catbird/api/requests/find/1", "POST /catbird/api/requests/find"),
        ] {
            let answer = try client.request(method, path)
            XCTAssertEqual(answer.status, 404, "\(method) \(path): \(answer.text)")
            XCTAssertEqual(
                answer.object["reason"] as? String,
                "no control route \(method) \"\(path)\" (did you mean \(meant)?); the control routes are listed in GET /catbird/api/openapi.json")
        }
        // A malformed id under the listing is still its 400.
        XCTAssertEqual(try client.request("GET", "/catbird/api/requests/abc").status, 400)
    }

    /// An id that is not a whole number from 1 is a bad request, 400, as for `DELETE
    /// /catbird/api/mocks/abc` (T12-F6: these were 404s whose reason described a bad request).
    func testAJournalIdThatIsNotANumberIsABadRequestThatSaysSo() throws {
        for id in ["abc", "1e3", "0", "99999999999999999999"] {
            for path in ["/catbird/api/requests/\(id)", "/catbird/api/requests/\(id)/request/body"] {
                let answer = try client.request("GET", path)
                XCTAssertEqual(answer.status, 400, "\(path): \(answer.text)")
                let reason = answer.object["reason"] as? String ?? ""
                XCTAssertTrue(reason.hasPrefix("\"\(id)\" is not a journal id: ids are whole numbers from 1"), "\(path): \(reason)")
            }
        }
    }

    /// Tester finding tester65b-F2, its paths: an escape of a letter was read in the segments
    /// after a journal id (`…/requests/{id}/%72equest/body`: 200) but not elsewhere
    /// (`/catbird/api/%72equests`, `/catbird/api/request%73/{id}`: 404 "no control route").
    /// A control path is read in RFC 3986's normal form, where `%72` is `r`, in every segment.
    func testAnEscapedUnreservedCharacterIsThatCharacterInEverySegment() throws {
        try E2E.addMock(client, tenant: nil, url: "/pe/a", body: "ok")
        XCTAssertEqual(try client.request("GET", "/pe/a").status, 200)
        let id = try XCTUnwrap(try E2E.journal(client, tenant: nil, once: 1).first?["id"] as? Int)
        for path in [
            "/catbird/api/requests/\(id)/%72equest/body", "/catbird/api/%72equests/\(id)", "/catbird/api/request%73/\(id)",
            "/catbird/api/%72%65%71uests/\(id)", "/catbird/%61pi/requests/\(id)/response/bod%79",
        ] {
            let answer = try client.request("GET", path)
            XCTAssertEqual(answer.status, 200, "\(path): \(answer.text)")
        }
        let listing = try client.request("GET", "/catbird/api/%72equests?limit=1")
        XCTAssertEqual(listing.status, 200, listing.text)
        XCTAssertEqual((listing.object["requests"] as? [[String: Any]])?.first?["url"] as? String, "/pe/a")
        XCTAssertEqual(try client.request("POST", "/catbird/api/mock%73", headers: [("Content-Type", "application/json")], body: Array(#"{"type":"removeAll"}"#.utf8)).status, 204)
        // The 404 of a path that stays unknown names it as sent; `%2F` is no `/`.
        let unknown = try client.request("GET", "/catbird/api/%72equests%2F\(id)")
        XCTAssertEqual(unknown.status, 404, unknown.text)
        XCTAssertTrue((unknown.object["reason"] as? String ?? "").hasPrefix("no control route GET \"/catbird/api/%72equests%2F\(id)\""), unknown.text)
    }
}
