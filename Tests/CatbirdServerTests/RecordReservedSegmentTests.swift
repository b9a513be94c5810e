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
            XCTAssertEqual(entry["problem"] as? String, "not recorded: cannot write '\(odd)': the request-target does not map to a file name")
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
}
