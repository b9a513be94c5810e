import CatbirdServer
import CatbirdTestSupport
import Foundation
import XCTest

/// A recording is all or nothing (docs/files.md#recording): every name it writes, the body's and
/// the sidecar's, is checked before anything is written, and when a write fails anyway what this
/// recording wrote is taken back. Tester finding T12-F2.
final class RecordAllOrNothingTests: RecordingTestCase {
    /// `name` with every byte but an ASCII letter percent-encoded (`é` is `%C3%A9`).
    private static func encoded(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz"))!
    }

    private func entries(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: mocksDirectory.appendingPathComponent(directory).path)) ?? []
    }

    /// The tester's names: a last segment of 234 to 255 bytes (`c` x 234, `d` x 240, `e` x 255,
    /// `é` x 120 and x 127) fits the file system's 255 bytes, its sidecar's name (22 bytes more)
    /// does not. The body was written, the sidecar failed (`File name too long`), and the body
    /// then replayed as a 200 without the upstream's `Content-Type` (nor its status, had it not
    /// been a 200). Now nothing is written and the `problem` names the bound; 233 bytes record whole.
    func testANameWhoseSidecarDoesNotFitIsNotRecordedAtAll() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let refused = [
            String(repeating: "c", count: 234), String(repeating: "d", count: 240), String(repeating: "e", count: 255),
            String(repeating: "é", count: 120), String(repeating: "é", count: 127),
        ]
        let fits = String(repeating: "f", count: 233)
        for name in refused + [fits] {
            let answer = try client.request("GET", "/L/" + Self.encoded(name))
            XCTAssertEqual(answer.status, 200, "the client still gets the upstream's answer")
        }
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, refused.count + 1)
        let root = mocksDirectory.resolvingSymlinksInPath().path
        for (entry, name) in zip(journal, refused) {
            let bytes = name.utf8.count
            XCTAssertEqual(
                entry["problem"] as? String,
                "not recorded: cannot write '\(root)/L/\(name)': the file's name is \(bytes) bytes long and its sidecar's "
                    + "\(bytes + 22); the file system takes at most 255 (233 for the file's name, its extension included)")
            XCTAssertTrue(E2E.isNull(entry["filePath"]), "\(entry)")
        }
        XCTAssertTrue(E2E.isNull(journal.last?["problem"]), "\(journal.last ?? [:])")
        XCTAssertEqual(Set(entries("L")), [fits, fits + ".catbird-response.json"], "nothing of the refused names, no temporary file")
        recorder.stop()
        upstream.stop()

        let replayer = try server(recording: false)
        let replay = try replayer.client()
        for name in refused {
            XCTAssertEqual(try replay.request("GET", "/L/" + Self.encoded(name)).status, 404)
        }
        let whole = try replay.request("GET", "/L/" + fits)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.header("Content-Type"), "application/json", "the sidecar's field")
        XCTAssertEqual(whole.header("X-Upstream"), "yes")
    }

    /// An `Accept` extension counts: `/A/<230 bytes>` with `Accept: application/json` is the
    /// body file `<230 bytes>.json` (235 bytes), whose sidecar's name would be 257 bytes.
    func testTheAcceptExtensionCountsInTheBound() throws {
        let recorder = try server(recording: true)
        let client = try recorder.client()
        let name = String(repeating: "a", count: 230)
        XCTAssertEqual(try client.request("GET", "/A/" + name, headers: [("Accept", "application/json")]).status, 200)
        let problem = try E2E.journal(client, tenant: nil).first?["problem"] as? String ?? ""
        XCTAssertTrue(problem.hasSuffix("the file's name is 235 bytes long and its sidecar's 257; the file system takes at most 255 (233 for the file's name, its extension included)"), problem)
        XCTAssertEqual(entries("A"), [], "nothing written")
    }

    /// A sidecar that cannot be renamed into place after the body was (a directory holds its
    /// name, so `rename` fails with `EISDIR`): the body this recording wrote is taken back, and
    /// the recording it replaced is put back as it was, so replay serves the old pair, never
    /// the new body with the old sidecar.
    func testASidecarThatCannotBeWrittenTakesTheBodyBack() throws {
        let echo = mocksDirectory.appendingPathComponent("echo")
        try FileManager.default.createDirectory(at: echo.appendingPathComponent("x.catbird-response.json"), withIntermediateDirectories: true)
        try Data("old body".utf8).write(to: echo.appendingPathComponent("x"))
        try FileManager.default.createDirectory(at: echo.appendingPathComponent("y.catbird-response.json"), withIntermediateDirectories: true)
        let recorder = try server(recording: true)
        let client = try recorder.client()
        XCTAssertEqual(try client.request("GET", "/echo/x").status, 200)
        XCTAssertEqual(try client.request("GET", "/echo/y").status, 200)
        let journal = try E2E.journal(client, tenant: nil)
        XCTAssertEqual(journal.count, 2)
        for entry in journal {
            let problem = entry["problem"] as? String ?? ""
            XCTAssertTrue(problem.hasPrefix("not recorded: cannot write '") && problem.hasSuffix(".catbird-response.json': Is a directory"), problem)
            XCTAssertTrue(E2E.isNull(entry["filePath"]), "\(entry)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: echo.appendingPathComponent("x").path), Data("old body".utf8), "the old recording kept")
        XCTAssertEqual(Set(entries("echo")), ["x", "x.catbird-response.json", "y.catbird-response.json"], "no new body, no temporary file")
    }
}
