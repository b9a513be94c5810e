import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// Record mode while its mocks directory is removed under the server (docs/files.md#recording).
final class RecordDirectoryGoneTests: RecordingTestCase {
    /// Regression (tester finding tester31a-F3, its steps): record mode recording `/a/one`
    /// into `rec13`, then `rm -rf rec13` (a CI clean step): every later recording failed, each
    /// only a warning and a journal `problem` saying "cannot open the mocks directory to lock
    /// it: No such file or directory", while health answered `200 {"status":"ok"}` (a replaying
    /// server says 503). Now health is 503 naming the directory and what to do, the problem says
    /// the directory is gone, and both recover once it is made again.
    func testHealthSaysTheRecordingDirectoryIsGoneAndRecordingGoesOnOnceItIsBack() throws {
        let directory: URL = mocksDirectory
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let root = directory.resolvingSymlinksInPath().path
        XCTAssertEqual(try client.request("GET", "/echo/a/one").status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/echo/a/one"))
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200)

        try FileManager.default.removeItem(at: directory)
        XCTAssertEqual(try client.request("GET", "/echo/a/two").status, 200, "still forwarded")
        let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/echo/a/two" })
        XCTAssertEqual(
            entry["problem"] as? String,
            "not recorded: cannot write '\(root)': the mocks directory does not exist any more (it did at start-up): make it again to go on recording")
        let health = try client.request("GET", "/catbird/api/health")
        XCTAssertEqual(health.status, 503, health.text)
        XCTAssertEqual(health.object["status"] as? String, "degraded")
        XCTAssertEqual(
            health.object["reason"] as? String,
            "the mocks directory \(root) does not exist any more (it did at start-up): nothing is recorded into it until it is a "
                + "directory again (mkdir -p \(root)); each answer meanwhile is journaled with the problem `not recorded: …`; requests "
                + "are still forwarded and answered, dynamic mocks and the journal work as before")

        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertEqual(try client.request("GET", "/catbird/api/health").status, 200, "healthy again once it is back")
        XCTAssertEqual(try client.request("GET", "/echo/a/three").status, 200)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/echo/a/three"), "recorded again")
    }
}
