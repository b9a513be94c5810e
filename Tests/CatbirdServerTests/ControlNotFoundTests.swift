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
        let far = try client.request("GET", "/catbird/api/nope")
        XCTAssertEqual(
            far.object["reason"] as? String, #"no control route GET "/catbird/api/nope"; the control routes are listed in GET /catbird/api/openapi.json"#)
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
}
