import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// tester41a-F3: one tenant's connections that asked for a 5 MB answer and read none of it each
/// held a connection slot, with no share per tenant: 600 of them (118 slots) kept another
/// tenant's mock hit and the health check waiting 33 s, the slots freed for room going to the
/// same tenant's queued connections. A mock or file answer over 64 KiB now takes one of its
/// tenant's places for parked requests while it goes out (1/8 of the slots), and past its share
/// is answered 429 at once, its hit given back (docs/tenancy.md#fair-shares).
final class LargeAnswerShareTests: XCTestCase {
    func testOneTenantsUnreadLargeAnswersNeverKeepAnotherTenantOut() throws {
        let server = try TestServer { $0.connectionLimit = 40 }  // a tenant's share: 5 places
        defer { server.removeFiles() }
        try E2E.addMock(try server.client(), tenant: "A", url: "/a/big", body: String(repeating: "a", count: 5_000_000))
        try Self.assertAnotherTenantGetsInPastUnreadAnswers(server, path: "/a/big")
        let journal = try E2E.journal(try server.client(), tenant: "A")
        let reasons = journal.compactMap { ($0["response"] as? [String: Any])?["body"] as? String }.filter { $0.contains("parked") }
        XCTAssertTrue(
            reasons.contains { $0.contains("mock and file answers over 64 KiB being sent") && $0.contains("already has 5 requests parked") },
            "\(reasons.prefix(2))")
    }

    /// The finding's own form: a 5,000,000-byte file mock in `--mocks-dir` that one tenant's
    /// clients ask for and never read. Past the tenant's share they get the 429 at once, and
    /// another tenant's mock hit and the health check get in.
    func testOneTenantsUnreadFileAnswersNeverKeepAnotherTenantOut() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-largefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("files"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(count: 5_000_000).write(to: directory.appendingPathComponent("files/big.bin"))
        let server = try TestServer {
            $0.connectionLimit = 40
            $0.mocksDirectory = directory.path
        }
        defer { server.removeFiles() }
        try Self.assertAnotherTenantGetsInPastUnreadAnswers(server, path: "/files/big.bin")
    }

    /// Tenant `A` asks for `path` (a 5 MB answer) on 60 connections that read nothing (the
    /// server's 40 slots, a tenant's share of 5 places); half a second later tenant `B`'s mock
    /// hit and the health check are answered within 3 s, at most 5 of A's answers are being sent
    /// and the others got the 429.
    private static func assertAnotherTenantGetsInPastUnreadAnswers(
        _ server: TestServer, path: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try E2E.addMock(try server.client(), tenant: "B", url: "/b/hit", body: "b ok")
        let readers = try (0..<60).map { _ in
            let client = try RawHTTPClient(port: server.port, timeoutSeconds: 20, receiveBuffer: 4096)
            try client.send("GET", path, headers: [("X-Catbird-Parallel-Id", "A")])
            return client
        }
        defer { withExtendedLifetime(readers) {} }
        Thread.sleep(forTimeInterval: 0.5)

        let started = ContinuousClock.now
        let other = try RawHTTPClient(port: server.port, timeoutSeconds: 15)
        let hit = try other.request("GET", "/b/hit", headers: [("X-Catbird-Parallel-Id", "B")])
        XCTAssertEqual(hit.status, 200, hit.text, file: file, line: line)
        XCTAssertEqual(hit.text, "b ok", file: file, line: line)
        XCTAssertEqual(try other.request("GET", "/catbird/api/health").status, 200, file: file, line: line)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), "another tenant got in while A's answers went unread", file: file, line: line)

        let heads = readers.map { String(decoding: $0.read(upTo: 12, within: 5), as: UTF8.self) }
        let sending = heads.filter { $0 == "HTTP/1.1 200" }.count
        XCTAssertLessThanOrEqual(sending, 5, "at most A's share is sent at once: \(heads)", file: file, line: line)
        XCTAssertEqual(sending + heads.filter { $0 == "HTTP/1.1 429" }.count, 60, "\(heads)", file: file, line: line)
    }
}
