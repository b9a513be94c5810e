import CatbirdTestSupport
import XCTest

/// The hits on one mock within one second share one response made once (SentMockAnswers): each
/// is still sent and journaled as its own answer, and a mock replaced within the second is
/// answered with its new response by the very next request.
final class SharedMockAnswerTests: XCTestCase {
    private func mock(body: String) -> String {
        """
        {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/shared"},"headers":{}},
         "response":{"status":200,"headers":{"Content-Type":"text/plain","X-Mock":"\(body)"},
                     "body":"\(Data(body.utf8).base64EncodedString())"}}
        """
    }

    func testAReplacedMockIsAnsweredWithItsNewResponseAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock(body: "first")).status, 201)
        for _ in 0..<3 {
            let served = try client.request("GET", "/shared")
            XCTAssertEqual(served.text, "first")
            XCTAssertEqual(served.header("X-Mock"), "first")
        }
        XCTAssertEqual(try client.json("POST", "/catbird/api/mocks", mock(body: "second!")).status, 201)
        let served = try client.request("GET", "/shared")
        XCTAssertEqual(served.text, "second!")
        XCTAssertEqual(served.header("X-Mock"), "second!")
        XCTAssertEqual(served.header("Content-Length"), "7")

        // Every hit journaled with the response it got, Date and Content-Length included.
        let entries = try client.request("GET", "/catbird/api/requests").object["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 4)
        let sent = entries.compactMap { ($0["response"] as? [String: Any])?["headers"] as? [String: String] }
        XCTAssertEqual(sent.map { $0["X-Mock"] }, ["first", "first", "first", "second!"])
        XCTAssertEqual(sent.map { $0["Content-Length"] }, ["5", "5", "5", "7"])
        XCTAssertEqual(sent.last?["Date"], served.header("Date"))
    }
}
