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
