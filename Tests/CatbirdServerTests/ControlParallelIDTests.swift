import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// try6b finding 11: an empty `X-Catbird-Parallel-Id` (a shard whose id variable is unset), or
/// an empty first value followed by a real one, was read as "no header", the admin, and
/// `DELETE /catbird/api/mocks` removed every shard's mocks. A control call's parallel id must
/// name one tenant or be absent (docs/tenancy.md#tenant-of-a-request).
final class ControlParallelIDTests: XCTestCase {
    func testAnEmptyOrConflictingParallelIdIsRefusedOnControlCallsAndRemovesNothing() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        try E2E.addMock(client, tenant: "S1", url: "/s1", body: "s1")
        try E2E.addMock(client, url: "/default", body: "default")

        // The exact failing inputs: `X-Catbird-Parallel-Id:` (empty), a blank one, and an empty
        // first value followed by S1.
        let inputs = [
            "DELETE /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id:\r\nConnection: close\r\n\r\n",
            "DELETE /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id:   \r\nConnection: close\r\n\r\n",
            "DELETE /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: \r\nX-Catbird-Parallel-Id: S1\r\nConnection: close\r\n\r\n",
            "DELETE /catbird/api/tenants HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: \r\nConnection: close\r\n\r\n",
            "DELETE /catbird/api/mocks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: S1\r\nX-Catbird-Parallel-Id: S2\r\nConnection: close\r\n\r\n",
        ]
        for input in inputs {
            let raw = try RawHTTPClient(port: server.port)
            try raw.send(raw: Array(input.utf8))
            let response = try raw.readResponse()
            XCTAssertEqual(response.status, 400, "\(input.debugDescription): \(response.text)")
            XCTAssertEqual(response.object["error"] as? Bool, true, response.text)
            XCTAssertTrue((response.object["reason"] as? String ?? "").contains("X-Catbird-Parallel-Id header"), response.text)
        }
        // Nothing was removed: both tenants' mocks still answer.
        XCTAssertEqual(try client.request("GET", "/s1", headers: [("X-Catbird-Parallel-Id", "S1")]).text, "s1")
        XCTAssertEqual(try client.request("GET", "/default").text, "default")
        // A mocked request with an empty id is still the default tenant's (docs/tenancy.md), the
        // same id twice is that tenant, and no header is still the admin.
        XCTAssertEqual(try client.request("GET", "/default", headers: [("X-Catbird-Parallel-Id", "")]).text, "default")
        let same = try client.request("GET", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "S1"), ("X-Catbird-Parallel-Id", "S1")])
        XCTAssertEqual(same.status, 200, same.text)
        XCTAssertEqual(try client.request("DELETE", "/catbird/api/mocks?all=true").status, 200)
        XCTAssertEqual(try client.request("GET", "/s1", headers: [("X-Catbird-Parallel-Id", "S1")]).status, 404)
    }

    /// Regression (tester finding tester50c-F3), the exact case: a control call refused for an
    /// empty or doubled parallel id was counted `answered_by="none"` (the label of app requests
    /// no mock matched) and logged `400 none`; it is a control route's answer.
    func testARefusedParallelIdIsCountedAsAControlAnswer() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let client = try server.client()
        let before = try Self.fourHundreds(client)
        XCTAssertEqual(try client.request("GET", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "")]).status, 400)
        XCTAssertEqual(
            try client.request("GET", "/catbird/api/mocks", headers: [("X-Catbird-Parallel-Id", "a"), ("X-Catbird-Parallel-Id", "b")]).status, 400)
        let after = try Self.fourHundreds(client)
        XCTAssertEqual(after.control - before.control, 2)
        XCTAssertEqual(after.none, before.none)
    }

    /// `catbird_requests_total`'s 4xx answers by control routes and by none (``E2E/metrics(_:)``).
    private static func fourHundreds(_ client: RawHTTPClient) throws -> (control: Double, none: Double) {
        let metrics = try E2E.metrics(client)
        return (metrics[#"catbird_requests_total{answered_by="control",status_class="4xx"}"#] ?? 0,
                metrics[#"catbird_requests_total{answered_by="none",status_class="4xx"}"#] ?? 0)
    }
}
