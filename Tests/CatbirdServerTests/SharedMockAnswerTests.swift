import CatbirdTestSupport
import XCTest

/// The hits on one mock within one second share one response made once (SentMockAnswers): each
/// is still sent and journaled as its own answer, and a mock replaced within the second is
/// answered with its new response by the very next request.
final class SharedMockAnswerTests: XCTestCase {
    private func addMock(_ client: RawHTTPClient, tenant: String, body: String) throws {
        try E2E.addMock(
            client, tenant: tenant, url: "/shared", responseHeaders: ["Content-Type": "text/plain", "X-Mock": body], body: body)
    }

    func testAReplacedMockIsAnsweredWithItsNewResponseAtOnce() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        // The case that matters is a replacement within the same second as the earlier hits
        // (the shared response is still fresh then); a run that crossed a second is tried again
        // in a tenant of its own.
        for attempt in 0..<5 {
            let tenant = "shared-\(attempt)"
            try addMock(client, tenant: tenant, body: "first")
            var firstDate: String?
            for _ in 0..<3 {
                let served = try client.request("GET", "/shared", headers: E2E.tenantHeader(tenant))
                XCTAssertEqual(served.text, "first")
                XCTAssertEqual(served.header("X-Mock"), "first")
                firstDate = served.header("Date")
            }
            try addMock(client, tenant: tenant, body: "second!")
            let served = try client.request("GET", "/shared", headers: E2E.tenantHeader(tenant))
            XCTAssertEqual(served.text, "second!")
            XCTAssertEqual(served.header("X-Mock"), "second!")
            XCTAssertEqual(served.header("Content-Length"), "7")

            // Every hit journaled with the response it got, Date and Content-Length included.
            let entries = try E2E.journal(client, tenant: tenant)
            XCTAssertEqual(entries.count, 4)
            let sent = entries.compactMap { ($0["response"] as? [String: Any])?["headers"] as? [String: String] }
            XCTAssertEqual(sent.map { $0["X-Mock"] }, ["first", "first", "first", "second!"])
            XCTAssertEqual(sent.map { $0["Content-Length"] }, ["5", "5", "5", "7"])
            XCTAssertEqual(sent.last?["Date"], served.header("Date"))
            if served.header("Date") == firstDate { return }
        }
        XCTFail("five tries each crossed a second between the first and the replaced mock's hits")
    }
}
