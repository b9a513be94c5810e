import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode when no upstream answer comes (docs/files.md#recording: upstream failures are
/// not recorded).
final class RecordUpstreamFailureTests: XCTestCase {
    /// Regression (tester29d-F2's note): with the upstream unreachable, record mode's 502 was
    /// journaled with no `problem`, while every other answer it did not write says
    /// `not recorded: …` there, so a search of the journal for what was not recorded missed it.
    /// Now its `problem` is `not recorded: ` and the 502's reason; without record mode the
    /// entry still has none (nothing was to be recorded).
    func testAnUnreachableUpstreamIsJournaledAsNotRecorded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-record-fail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let closedPort = try FreePort.next()  // nothing listens there
        for recording in [true, false] {
            let server = try TestServer { settings in
                settings.redirectURL = "http://127.0.0.1:\(closedPort)"
                settings.recordMode = recording
                if recording { settings.mocksDirectory = directory.path }
            }
            let client = try server.client()
            let answer = try client.request("GET", "/api/users")
            E2E.assertError(answer, status: 502, reasonContains: "upstream unreachable: ")
            let reason = try XCTUnwrap(answer.object["reason"] as? String)
            let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/api/users" })
            if recording {
                XCTAssertEqual(entry["problem"] as? String, "not recorded: " + reason)
                XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("api/users").path))
            } else {
                XCTAssertTrue(entry["problem"] == nil || entry["problem"] is NSNull, "\(entry)")
            }
        }
    }
}
