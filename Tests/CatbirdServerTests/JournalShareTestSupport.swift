import CatbirdTestSupport
import Foundation
import XCTest

/// What the journal share's tests (docs/tenancy.md#fair-shares) have in common: tenant A's
/// uploads of 60,000-byte bodies (as in tester22b-F4), each on a connection of its own.
enum JournalShare {
    /// Tenant A's upload body.
    static let upload = [UInt8](repeating: UInt8(ascii: "u"), count: 60_000)

    /// Sends `count` of tenant A's uploads to `POST /a/up`, each on a connection of its own,
    /// without reading the answers; 10 ms apart, so the last ones are those held.
    static func sendUploads(_ server: TestServer, count: Int) throws -> [RawHTTPClient] {
        try (0..<count).map { _ in
            let connection = try RawHTTPClient(port: server.port, timeoutSeconds: 30)
            try connection.send("POST", "/a/up", headers: [("X-Catbird-Parallel-Id", "A")], body: upload)
            usleep(10_000)
            return connection
        }
    }

    /// Tenant A's 230 uploads (about 61 KB queued each, 14 MB in all) while a held write lock
    /// fails the writer: 25 sent, the failure waited for, then 205 more, passing the 12 MiB all
    /// tenants' large rows may take; their answers not read.
    static func uploadsPastThreeQuarters(_ server: TestServer, _ client: RawHTTPClient) throws -> [RawHTTPClient] {
        var uploads = try sendUploads(server, count: 25)
        try waitUntilWriterFails(client)
        uploads += try sendUploads(server, count: 205)
        return uploads
    }

    /// Waits up to 10 s until `server`'s health says the journal writer fails (503), and
    /// asserts it did.
    static func waitUntilWriterFails(_ client: RawHTTPClient, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try client.request("GET", "/catbird/api/health").status == 200, ContinuousClock.now < deadline { usleep(50_000) }
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 503, "the writer should fail", file: file, line: line)
    }

    /// `tenant`'s journal rows, counted by SQL (which waits for the tenant's rows queued before
    /// it; a journal page stops at its byte bound, about 29 of these uploads).
    static func rows(_ client: RawHTTPClient, tenant: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int? {
        let rows = try E2E.sqlRows(client, "SELECT count(*) FROM requests", tenant: tenant, file: file, line: line)
        return rows.first?.first.flatMap { JSONNumber.int($0) }
    }
}
