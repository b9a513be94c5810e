import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// try6b finding 9: a HAR export held its tenant's slow-lane admission for its first page only,
/// so one tenant streamed 9 of 10 simultaneous full exports (one 429) and another tenant's mock
/// hits went from p50 0.2 ms to 47–85 ms for minutes. The export now stays one of its tenant's 4
/// admitted slow calls until its last page was sent or its client went away
/// (docs/tenancy.md#fair-shares).
final class HARExportAdmissionTests: XCTestCase {
    func testStreamingExportsHoldTheirTenantsSlowAdmissionUntilTheClientGoes() throws {
        let server = try TestServer { $0.logLevel = .error }
        defer { server.removeFiles() }
        let tenant = [("X-Catbird-Parallel-Id", "J")]
        let client = try server.client()
        try E2E.addMock(client, tenant: "J", method: "POST", url: "/big", body: "ok")
        // 24 MB of journaled bodies: far more than loopback socket buffers take, so an export
        // whose client reads only its head is still streaming.
        let body = Array(repeating: UInt8(ascii: "a"), count: 60_000)
        for _ in 0..<400 {
            XCTAssertEqual(try client.request("POST", "/big", headers: tenant, body: body).status, 200)
        }
        let request = Array("GET /catbird/api/requests.har HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: J\r\n\r\n".utf8)
        var streaming: [RawHTTPClient] = []
        for _ in 0..<4 {
            let export = try RawHTTPClient(port: server.port)
            try export.send(raw: request)
            let head = String(decoding: export.read(upTo: 12, within: 10), as: UTF8.self)
            XCTAssertEqual(head, "HTTP/1.1 200")
            streaming.append(export)
        }
        // The four are still sending: a fifth export, or any slow call of J, is refused.
        let fifth = try client.request("GET", "/catbird/api/requests.har", headers: tenant)
        XCTAssertEqual(fifth.status, 429, String(fifth.text.prefix(200)))
        XCTAssertTrue(fifth.text.contains("this tenant already has 4 slow control calls"), String(fifth.text.prefix(200)))
        let count = try client.json(
            "POST", "/catbird/api/requests/count", #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/big"}}}"#, headers: tenant)
        XCTAssertEqual(count.status, 429, count.text)
        // Another tenant's export is admitted: the limit is J's own.
        let other = try client.request("GET", "/catbird/api/requests.har", headers: [("X-Catbird-Parallel-Id", "K")])
        XCTAssertEqual(other.status, 200, String(other.text.prefix(200)))

        // The clients go away: their exports give the admission back.
        for export in streaming { export.hangUp() }
        streaming = []
        var again = try client.request("GET", "/catbird/api/requests.har?limit=1", headers: tenant)
        for _ in 0..<100 where again.status == 429 {
            usleep(100_000)
            again = try client.request("GET", "/catbird/api/requests.har?limit=1", headers: tenant)
        }
        XCTAssertEqual(again.status, 200, String(again.text.prefix(200)))
        // An export read to its end gives it back too: five whole exports one after another.
        for _ in 0..<5 {
            XCTAssertEqual(try client.request("GET", "/catbird/api/requests.har?limit=40", headers: tenant).status, 200)
        }
    }
}
