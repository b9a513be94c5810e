import CatbirdTestSupport
import XCTest

/// The shortest end-to-end path: add a mock over the control API, get it served, see it in the journal.
final class SmokeTests: XCTestCase {
    func testAddedMockIsServedAndJournaled() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let added = try client.json("POST", "/catbird/api/mocks", """
            {"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/hello"},"headers":{}},
             "response":{"status":200,"headers":{"Content-Type":"text/plain"},"body":"aGk="}}
            """)
        XCTAssertEqual(added.status, 201)
        let served = try client.request("GET", "/hello")
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.text, "hi")
        XCTAssertEqual(served.header("Content-Type"), "text/plain")
        let journal = try client.request("GET", "/catbird/api/requests")
        let entries = journal.object["requests"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?["url"] as? String, "/hello")
        XCTAssertEqual(entries.first?["answeredBy"] as? String, "mock")
    }
}
