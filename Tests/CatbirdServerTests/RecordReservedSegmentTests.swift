import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// No segment of a recorded or served path is a sidecar's or a recording's temporary file's
/// name (docs/files.md#sidecar).
final class RecordReservedSegmentTests: RecordingTestCase {
    /// Regression (tester finding tester31a-F4, its steps): recording `/a.catbird-response.json/b`
    /// made a directory of `/a`'s sidecar's name, and every recording of `/a` then failed with
    /// "Is a directory"; `/.catbird-recording-99998-1.tmp/x` was recorded and served too. Only
    /// the last segment was checked; now every segment is: such a request is forwarded and
    /// answered but not recorded, and `/a` is recorded as usual.
    func testASidecarsOrTemporaryFilesNameAsADirectorySegmentIsNeitherRecordedNorServed() throws {
        let directory: URL = mocksDirectory
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let root = directory.resolvingSymlinksInPath().path
        for odd in ["/echo/a.catbird-response.json/b", "/echo/.catbird-recording-99998-1.tmp/x", "/echo/t/.catbird-recording-99998-2.intent.tmp/y"] {
            XCTAssertEqual(try client.request("GET", odd).status, 200, odd)
            let entry = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == odd }, odd)
            XCTAssertEqual(
                entry["problem"] as? String,
                "not recorded: cannot write '\(odd)': the request-target does not map to a file name: a segment of its path is a "
                    + "sidecar's (.catbird-response.json) or a recording's temporary file's, which no request may name")
        }
        XCTAssertEqual(try client.request("GET", "/echo/a").status, 200)
        let recorded = try XCTUnwrap(try E2E.journal(client, tenant: nil).first { $0["url"] as? String == "/echo/a" })
        XCTAssertTrue(recorded["problem"] == nil || recorded["problem"] is NSNull, "\(recorded)")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: root + "/echo")), ["a", "a.catbird-response.json"])
        recorder.stop()

        try Data("planted".utf8).write(to: directory.appendingPathComponent("x"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(".catbird-recording-99998-1.tmp"), withIntermediateDirectories: true)
        try Data("planted".utf8).write(to: directory.appendingPathComponent(".catbird-recording-99998-1.tmp/x"))
        let replay = try self.server(recording: false)
        let again = try replay.client()
        XCTAssertEqual(try again.request("GET", "/x").text, "planted")
        XCTAssertEqual(try again.request("GET", "/.catbird-recording-99998-1.tmp/x").status, 404, "a temporary file's name on the way")
    }

    /// Regression (tester finding tester36a-F7, the finding's targets): each request-target that
    /// maps to no file name was journaled as "not recorded: cannot write '…': the request-target
    /// does not map to a file name", whichever rule refused it. Now the problem names the rule.
    func testARecordingRefusedForItsNameSaysWhichRule() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let rules = [
            "/echo/x%5Cy": "its path holds a backslash ('\\' or %5C), which a file name may not hold",
            "/echo/x%00y": "its path holds a control character once percent-decoded (such as %00 or %0A), which a file name may not hold",
            "/echo/x%0Ay": "its path holds a control character once percent-decoded (such as %00 or %0A), which a file name may not hold",
            "/echo/%2e%2e/x": "its path has a '..' segment once percent-decoded (%2e%2e too), which would leave the mocks directory",
            "/echo/%C0%AF": "its path is not UTF-8 once percent-decoded (a file name is UTF-8 text)",
            "/echo/x%FFy": "its path is not UTF-8 once percent-decoded (a file name is UTF-8 text)",
        ]
        for target in rules.keys {
            XCTAssertEqual(try client.request("GET", target).status, 200, target)
        }
        let journal = try E2E.journal(client, tenant: nil)
        for (target, rule) in rules {
            let entry = try XCTUnwrap(journal.first { $0["url"] as? String == target }, target)
            XCTAssertEqual(
                entry["problem"] as? String, "not recorded: cannot write '\(target)': the request-target does not map to a file name: \(rule)")
        }
        recorder.stop()
        // Served, its 404 says the same.
        let replay = try server(recording: false)
        let root = mocksDirectory.resolvingSymlinksInPath().path
        let missed = try replay.client().request("GET", "/echo/x%5Cy")
        XCTAssertEqual(missed.status, 404)
        XCTAssertTrue(
            (missed.object["reason"] as? String ?? "").contains(
                "no file mock: the request-target maps to no file name in \(root): \(rules["/echo/x%5Cy"]!) (docs/files.md#confinement)"),
            missed.text)
    }
}
