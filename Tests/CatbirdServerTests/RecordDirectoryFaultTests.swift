import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Health while recordings fail because the mocks directory cannot take them (docs/files.md#recording).
final class RecordDirectoryFaultTests: RecordingTestCase {
    /// Tester finding tester52a-F6: with the mocks directory on a read-only (or full) file system,
    /// every recording failed while health said `ok`, so a CI recording job that gated on health
    /// recorded nothing. Here the directory is made immutable (`chattr +i`): health answers 503
    /// naming it once a recording failed, and `ok` again once it takes writes.
    func testHealthIsDegradedWhileTheMocksDirectoryCannotTakeRecordings() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        XCTAssertEqual(try client.request("GET", "/echo/first").status, 200)
        XCTAssertTrue(exists("echo/first.json") || exists("echo/first"), "recorded while writable")
        let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
        let folder = mocksDirectory.resolvingSymlinksInPath()
        let made = try ProcessRunner.run(chattr, ["+i", folder.path], in: folder.deletingLastPathComponent())
        guard made.status == 0 else { throw XCTSkip("chattr +i is not permitted here (not root, or no such flag): \(made.stderr)") }
        var undone = false
        defer { if !undone { _ = try? ProcessRunner.run(chattr, ["-i", folder.path], in: folder.deletingLastPathComponent()) } }
        XCTAssertEqual(try client.request("GET", "/status/201").status, 201, "still forwarded and answered")
        let problem = try E2E.journal(client, tenant: nil).last?["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasPrefix("not recorded: "), problem)
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)  // was 200 {"status":"ok"}
        XCTAssertEqual(health.object["status"] as? String, "degraded")
        let reason = health.object["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("the mocks directory \(folder.path) cannot be written ("), reason)
        XCTAssertTrue(reason.contains("every recording fails"), reason)

        XCTAssertEqual(try ProcessRunner.run(chattr, ["-i", folder.path], in: folder.deletingLastPathComponent()).status, 0)
        undone = true
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, "the directory takes writes again")
    }
}
