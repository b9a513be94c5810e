import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// tester39b-F8: the buffered-body budget (`--max-buffered-bodies`) was one pool with no share
/// per tenant: one tenant's four concurrent 900,000-byte uploads made another tenant's one
/// upload of the same size fail with 503. A tenant now takes up to its share (one body of
/// `--max-body-size`) like any other; past it, only while a share stays free for other tenants
/// (docs/tenancy.md#fair-shares).
final class BufferedBodyTenantShareTests: XCTestCase {
    private static let mebibyte = 1 << 20
    private static let uploadSize = 900_000

    /// The finding's server: `--max-body-size 1mb --max-buffered-bodies 2mb`.
    private static func serverAsInTheFinding() throws -> TestServer {
        try TestServer {
            $0.maxBodySize = mebibyte
            $0.maxBufferedBodies = 2 * mebibyte
        }
    }

    /// Tenant `victim`'s upload of ``uploadSize`` bytes, sent whole on a new connection, is
    /// answered by its mock (`victim stored`).
    private static func assertVictimsUploadIsTaken(_ server: TestServer, file: StaticString = #filePath, line: UInt = #line) throws {
        let answer = try server.client().request(
            "POST", "/upload", headers: [("X-Catbird-Parallel-Id", "victim")],
            body: [UInt8](repeating: UInt8(ascii: "v"), count: uploadSize))
        XCTAssertEqual(answer.status, 200, answer.text, file: file, line: line)
        XCTAssertEqual(answer.text, "victim stored", file: file, line: line)
    }

    private static func uploadHead(tenant: String, length: Int) -> [UInt8] {
        Array("POST /upload HTTP/1.1\r\nHost: x\r\nX-Catbird-Parallel-Id: \(tenant)\r\nContent-Length: \(length)\r\n\r\n".utf8)
    }

    /// Tenant `hog` starts four uploads of 900,000 bytes, each sent but for its last 300,000
    /// bytes (as a slow link would); then tenant `victim` uploads 900,000 bytes to its own mock.
    /// Before, the victim got the 503 naming the server-wide option. Now the hog's first upload
    /// (within its share) is taken and its others get a 503 that names the tenant's share; the
    /// victim's upload is answered by its mock; the hog's first completes as usual.
    func testAnotherTenantsUploadsPastTheirShareNeverKeepATenantsUploadOut() throws {
        let server = try Self.serverAsInTheFinding()
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hog", method: "POST", url: "/upload", body: "hog stored")
        try E2E.addMock(control, tenant: "victim", method: "POST", url: "/upload", body: "victim stored")

        var hogUploads: [RawHTTPClient] = []
        var hogRefusals: [String] = []
        for _ in 0..<4 {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
            try client.send(raw: Self.uploadHead(tenant: "hog", length: Self.uploadSize))
            let early = client.readUntilQuiet(firstByteWithin: 300, quietAfter: 100)
            if early.isEmpty {
                try client.send(raw: [UInt8](repeating: UInt8(ascii: "h"), count: Self.uploadSize - 300_000))
                hogUploads.append(client)
                Thread.sleep(forTimeInterval: 0.3)  // read by the server before the next head
            } else {
                hogRefusals.append(String(decoding: early, as: UTF8.self))
            }
        }
        XCTAssertEqual(hogUploads.count, 1, "the hog's first upload is within its share of 1 MiB")
        XCTAssertEqual(hogRefusals.count, 3)
        for refusal in hogRefusals {
            XCTAssertTrue(refusal.hasPrefix("HTTP/1.1 503 "), refusal)
            XCTAssertTrue(refusal.contains(#""error":true"#), refusal)
            XCTAssertTrue(refusal.contains("would pass its share of 1048576 bytes of the 2097152 bytes"), refusal)
            XCTAssertTrue(refusal.contains("docs/tenancy.md#fair-shares"), refusal)
        }

        try Self.assertVictimsUploadIsTaken(server)

        let hog = try XCTUnwrap(hogUploads.first)
        try hog.send(raw: [UInt8](repeating: UInt8(ascii: "h"), count: 300_000))
        let completed = try hog.readResponse()
        XCTAssertEqual(completed.status, 200, completed.text)
        XCTAssertEqual(completed.text, "hog stored")

        let journal = try E2E.journal(control, tenant: "victim", once: 1)
        XCTAssertEqual(journal.map { JSONNumber.int(($0["request"] as? [String: Any])?["bodySize"]) }, [Self.uploadSize])
    }

    /// tester41a-F1: the uploads of the tenant past its share arrived slowly, all four growing
    /// at once, and the other tenant's upload still got the 503: at 2 MiB the budget is below
    /// the bound the share needs (two of the largest bodies beside the last eighth, 16/7 MiB
    /// here), as docs/tenancy.md#fair-shares now says. With 3 MiB: tenant `hog` sends four
    /// uploads of 900,000 bytes 100,000 bytes at a time, round after round, to 600,000 each;
    /// tenant `victim`'s upload of 900,000 bytes is then taken and answered by its mock, and
    /// each of the hog's is answered once it ends (its mock's 200, or the 503 of its share).
    func testSlowlyGrowingUploadsPastTheirShareLeaveRoomForAnotherTenantsLargestBody() throws {
        let server = try TestServer {
            $0.maxBodySize = Self.mebibyte
            $0.maxBufferedBodies = 3 * Self.mebibyte
        }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "hog", method: "POST", url: "/upload", body: "hog stored")
        try E2E.addMock(control, tenant: "victim", method: "POST", url: "/upload", body: "victim stored")
        let hog = try (0..<4).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
            try client.send(raw: Self.uploadHead(tenant: "hog", length: Self.uploadSize))
            return client
        }
        let step = [UInt8](repeating: UInt8(ascii: "h"), count: 100_000)
        for _ in 0..<6 {
            for client in hog { try client.send(raw: step) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.3)

        try Self.assertVictimsUploadIsTaken(server)

        var statuses: [Int] = []
        for client in hog {
            try client.send(raw: [UInt8](repeating: UInt8(ascii: "h"), count: 300_000))
            let response = try client.readResponse()
            statuses.append(response.status)
            if response.status == 503 { XCTAssertTrue(response.text.contains("would pass its share of 1048576 bytes"), response.text) }
        }
        XCTAssertTrue(statuses.contains(200), "the hog's uploads within its share are answered: \(statuses)")
        XCTAssertEqual(Set(statuses).subtracting([200, 503]), [], "\(statuses)")
        // tester41a-F4: a body refused while it arrived was journaled as refused before it was read.
        let refused = try E2E.journal(control, tenant: "hog").filter { JSONNumber.int(($0["response"] as? [String: Any])?["status"]) == 503 }
        XCTAssertEqual(refused.count, statuses.filter { $0 == 503 }.count)
        for entry in refused {
            XCTAssertTrue((entry["problem"] as? String ?? "").hasPrefix("refused while its body arrived"), "\(entry["problem"] ?? "")")
        }
    }

    /// A tenant alone still holds past its share while a share stays free, as documented
    /// (docs/tenancy.md#fair-shares: a tenant alone takes seven of the largest bodies at once):
    /// with `--max-body-size 10mb` and the default budget (8/7 × 88 MiB, of which a tenant past
    /// its share may hold 7/8 less one share: 78 MiB), one tenant's seven uploads of 10 MiB,
    /// each sent but for its last byte, are all taken; its eighth gets the 503 naming its share,
    /// while another tenant's upload of 10 MiB is taken; all are answered by their mocks and
    /// the budget is free again afterwards.
    func testATenantAloneTakesSevenOfTheLargestBodiesAndAnotherTenantStillOne() throws {
        let size = 10 * Self.mebibyte
        let server = try TestServer { $0.maxBodySize = size }
        defer { server.removeFiles() }
        let control = try server.client()
        try E2E.addMock(control, tenant: "solo", method: "POST", url: "/upload", body: "stored")
        try E2E.addMock(control, tenant: "other", method: "POST", url: "/upload", body: "other stored")
        var uploads: [RawHTTPClient] = []
        for _ in 0..<7 {
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 20)
            try client.send(raw: Self.uploadHead(tenant: "solo", length: size) + [UInt8](repeating: UInt8(ascii: "s"), count: size - 1))
            uploads.append(client)
            Thread.sleep(forTimeInterval: 0.4)
        }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(E2E.bufferedBytes(server)), 7 * size, "all seven are held at once")
        let eighth = try RawHTTPClient(port: server.port, timeoutSeconds: 10)
        try eighth.send(raw: Self.uploadHead(tenant: "solo", length: size))
        let refused = try eighth.readResponse()
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertTrue(refused.text.contains("would pass its share of 10485760 bytes"), refused.text)

        let other = try server.client()
        let answer = try other.request(
            "POST", "/upload", headers: [("X-Catbird-Parallel-Id", "other")], body: [UInt8](repeating: UInt8(ascii: "o"), count: size))
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.text, "other stored")
        for client in uploads {
            try client.send(raw: [UInt8(ascii: "s")])
            let completed = try client.readResponse()
            XCTAssertEqual(completed.status, 200, completed.text)
            XCTAssertEqual(completed.text, "stored")
        }
        XCTAssertEqual(try E2E.bufferedBytesOnceGivenBack(server), 0, "every upload gave its bytes back")
    }
}
