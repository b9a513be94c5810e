import CatbirdTestSupport
import Foundation
import XCTest

/// Tester finding try10b F2, addendum: parked `POST /catbird/api/requests/wait` calls with large
/// patterns held the buffered-body budget (`--max-buffered-bodies`) for as long as they waited,
/// and every other tenant's upload and large `update` got 503. Now a tenant's parked waits hold
/// at most 1/32 of the budget (429 past it) and all tenants' at most 1/4 (503 past it), so
/// uploads always keep three quarters of it (docs/tenancy.md#fair-shares).
final class ParkedWaitBytesTests: XCTestCase {
    private static let mebibyte = 1 << 20

    /// A 40 MiB budget (4 MiB bodies): a tenant's waits may hold 1,310,720 bytes, all tenants' 10,485,760.
    private func server() throws -> TestServer {
        try TestServer {
            $0.maxBodySize = 4 * Self.mebibyte
            $0.maxBufferedBodies = 40 * Self.mebibyte
            $0.journalBodyLimit = Self.mebibyte  // the request a wait is for is kept whole, so it matches
        }
    }

    /// A wait for a POST whose body contains `size` bytes of `x` (never sent), as raw bytes.
    private static func wait(tenant: String, size: Int, timeout: Int) -> [UInt8] {
        let body = #"{"pattern":{"method":"POST","url":{"kind":"equal","value":"/never"},"body":{"kind":"contains","value":""#
            + String(repeating: "x", count: size) + #""}},"timeout":\#(timeout)}"#
        return Array((
            "POST /catbird/api/requests/wait HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: \(tenant)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    /// Whether the wait just sent on `client` is parked: no answer within 300 ms.
    private static func isParked(_ client: RawHTTPClient) -> Bool {
        client.readUntilQuiet(firstByteWithin: 300, quietAfter: 100).isEmpty
    }

    /// Another tenant's 2 MB `update` and 1 MB upload are served (201; 404, no mock), not 503.
    /// Sends `waits` in order, each on a connection of its own: the first `parking` must park
    /// (no answer yet: within the bounds); the answers of the rest are read.
    private static func sendWaits(
        to server: TestServer, parking: Int, _ waits: [[UInt8]], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (parked: [RawHTTPClient], refused: [RawResponse]) {
        var parked: [RawHTTPClient] = []
        var refused: [RawResponse] = []
        for (index, wait) in waits.enumerated() {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: wait)
            if parked.count < parking {
                XCTAssertTrue(isParked(client), "wait \(index): within the bounds, parked", file: file, line: line)
                parked.append(client)
            } else {
                refused.append(try client.readResponse())
            }
        }
        return (parked, refused)
    }

    private func checkOthersUploads(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) throws {
        let victim = try server.client()
        let fixture = String(repeating: "QUJD", count: 500_000)
        let update = try victim.json(
            "POST", "/catbird/api/mocks",
            #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/big"}},"response":{"status":200,"body":"\#(fixture)"}}"#,
            headers: E2E.tenantHeader("victim"))
        XCTAssertEqual(update.status, 201, String(update.text.prefix(300)), file: file, line: line)
        let upload = try victim.request(
            "POST", "/upload", headers: E2E.tenantHeader("victim"), body: [UInt8](repeating: UInt8(ascii: "y"), count: 1_000_000))
        XCTAssertEqual(upload.status, 404, String(upload.text.prefix(300)), file: file, line: line)
    }

    /// The finding's shape, scaled to a 40 MiB budget: one tenant parks 200 waits with 200 KB
    /// patterns. It parked 183 of them (the other 17 got the budget's 503) and another tenant's
    /// 2 MB update and 1 MB upload got 503 while they waited. Now 6 park (1,200,000 bytes of
    /// the tenant's 1,310,720), the other 194 get 429 at once naming the bound, the other
    /// tenant is served, and a wait that answered gives its bytes back.
    func testOneTenantsParkedWaitsHoldOnlyItsShareOfTheBodyBudget() throws {
        let server = try server()
        defer { server.removeFiles() }
        let (parked, refused) = try Self.sendWaits(
            to: server, parking: 6, (0..<200).map { _ in Self.wait(tenant: "waiter", size: 200_000, timeout: 60) })
        XCTAssertEqual(refused.count, 194)
        for answer in refused {
            XCTAssertEqual(answer.status, 429, String(answer.text.prefix(300)))
            XCTAssertTrue(answer.text.contains("this tenant's parked waits already hold 1200"), String(answer.text.prefix(300)))
            XCTAssertTrue(answer.text.contains("1/32 of --max-buffered-bodies, 41943040 bytes"), String(answer.text.prefix(600)))
        }
        try checkOthersUploads(server)

        // The request they wait for arrives: they answer (200) and give their bytes back, so the
        // tenant may park a wait again.
        let app = try server.client()
        let sent = try app.request(
            "POST", "/never", headers: E2E.tenantHeader("waiter"), body: [UInt8](repeating: UInt8(ascii: "x"), count: 200_000))
        XCTAssertEqual(sent.status, 404)
        for client in parked { XCTAssertEqual(try client.readResponse().status, 200) }
        try Self.assertParksSoon(Self.wait(tenant: "waiter", size: 1_000_000, timeout: 1), on: server, "a 1 MB wait of the same tenant")
    }

    /// All tenants' waits together: 12 tenants each park one wait with a 1 MB pattern; 10 fit
    /// the 10,485,760 bytes all tenants' waits may hold, the other 2 get 503 naming the bound,
    /// another tenant's uploads are served meanwhile, and the bound's bytes come back when
    /// the waits answer.
    func testAllTenantsParkedWaitsHoldAtMostAQuarterOfTheBodyBudget() throws {
        let server = try server()
        defer { server.removeFiles() }
        let (parked, refused) = try Self.sendWaits(
            to: server, parking: 10, (0..<12).map { Self.wait(tenant: "t\($0)", size: 1_000_000, timeout: 30) })
        for answer in refused {
            XCTAssertEqual(answer.status, 503, String(answer.text.prefix(300)))
            XCTAssertEqual(answer.header("Retry-After"), "1")
            XCTAssertTrue(answer.text.contains("the parked waits of all tenants already hold 100"), String(answer.text.prefix(300)))
            XCTAssertTrue(answer.text.contains("1/4 of --max-buffered-bodies, 41943040 bytes"), String(answer.text.prefix(600)))
        }
        XCTAssertEqual(refused.count, 2)
        try checkOthersUploads(server)

        // The requests they wait for arrive: they answer and give their bytes back to the
        // all-tenants bound, so another tenant's 1 MB wait parks again.
        let app = try server.client()
        for tenant in 0..<10 {
            let sent = try app.request(
                "POST", "/never", headers: E2E.tenantHeader("t\(tenant)"), body: [UInt8](repeating: UInt8(ascii: "x"), count: 1_000_000))
            XCTAssertEqual(sent.status, 404)
        }
        for client in parked { XCTAssertEqual(try client.readResponse().status, 200) }
        try Self.assertParksSoon(Self.wait(tenant: "late", size: 1_000_000, timeout: 1), on: server, "a 1 MB wait of a new tenant")
    }

    /// Sends `wait` until it parks (bytes are given back just after the waits they belong to
    /// answered), at most 50 times 100 ms apart.
    private static func assertParksSoon(
        _ wait: [UInt8], on server: TestServer, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var settled = false
        for _ in 0..<50 where !settled {
            let again = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try again.send(raw: wait)
            settled = isParked(again)
            if !settled { Thread.sleep(forTimeInterval: 0.1) }
        }
        XCTAssertTrue(settled, "\(what) parks once the parked waits were let go", file: file, line: line)
    }
}
