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

    func testAJournalIdThatIsNotANumberSaysSo() throws {
        let answer = try client.request("GET", "/catbird/api/requests/abc")
        XCTAssertEqual(answer.status, 404, answer.text)
        let reason = answer.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("\"abc\" is not a journal id"), reason)
    }
}
