import CatbirdTestSupport
import Foundation
import XCTest

/// tester42a-F8: a request refused for `--max-body-size` (a declared `Content-Length`, or a
/// chunked body past the limit) was exported with `postData.comment` "the journal kept the
/// first 0 of 5000 bytes (--journal-body-limit)", an option that changes nothing there. The
/// comment is now the entry's `problem`, which says why the body is not there.
final class HARRefusedBodyTests: XCTestCase {
    func testARefusedBodysCommentSaysWhyItIsNotThere() throws {
        let server = try TestServer { $0.maxBodySize = 1024 }
        defer { server.removeFiles() }
        let header = "X-Catbird-Parallel-Id: ref\r\nContent-Type: text/plain\r\n"
        for text in [
            "POST /big HTTP/1.1\r\nHost: x\r\n\(header)Content-Length: 5000\r\n\r\n" + String(repeating: "a", count: 5000),
            "POST /bigchunk HTTP/1.1\r\nHost: x\r\n\(header)Transfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "b", count: 2048) + "\r\n0\r\n\r\n",
        ] {
            let raw = try server.client()
            try raw.send(raw: Array(text.utf8))
            XCTAssertEqual(try raw.readResponse().status, 413)
        }
        let har = try server.client().request("GET", "/catbird/api/requests.har", headers: E2E.tenantHeader("ref"))
        let entries = ((har.object["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        XCTAssertEqual(entries.count, 2, har.text)
        let comments = entries.map { (($0["request"] as? [String: Any])?["postData"] as? [String: Any])?["comment"] as? String ?? "" }
        XCTAssertEqual(Set(comments), [
            "refused before its body was read: bodySize is the declared Content-Length, not bytes received",
            "refused once its chunked body passed the size limit: bodySize is the bytes received, which were discarded",
        ])
        XCTAssertFalse(comments.contains { $0.contains("--journal-body-limit") })
    }
}
