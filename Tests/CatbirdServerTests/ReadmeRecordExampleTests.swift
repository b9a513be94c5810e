import CatbirdTestSupport
import Foundation
import XCTest

/// The README's record-then-replay example, run as written by bash in a fresh directory standing
/// in for a clean clone. Two substitutions only: `scripts/run` is a shell function that execs the
/// `catbird` built beside the tests with the same arguments (scripts/run would build a release
/// binary first, minutes on CI), and ports 8080 and 9000 become free ones so the test never meets
/// another server.
final class ReadmeRecordExampleTests: XCTestCase {
    func testRecordThenReplayExampleRunsAsWritten() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try XCTUnwrap(text.range(of: "### Record a backend, then replay it"), "README section renamed?")
        let after = text[section.upperBound...]
        let start = try XCTUnwrap(after.range(of: "```sh\n"))
        let end = try XCTUnwrap(after[start.upperBound...].range(of: "```"))
        var script = String(after[start.upperBound..<end.lowerBound])
        script = script.replacingOccurrences(of: "8080", with: "\(try FreePort.next())")
            .replacingOccurrences(of: "9000", with: "\(try FreePort.next())")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let catbird = try BuiltProducts.executable(named: "catbird").path
        var environment = ProcessInfo.processInfo.environment
        environment["CATBIRD"] = catbird
        environment["CATBIRD_LOG_LEVEL"] = "warning"
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "set -e\nscripts/run() { exec \"$CATBIRD\" serve \"$@\"; }\n" + script],
            in: directory, environment: environment, seconds: 120)
        let printed = result.output

        XCTAssertEqual(result.status, 0, printed)
        XCTAssertEqual(printed.components(separatedBy: #"{"books":["Dune"]}"#).count - 1, 2, printed)
        XCTAssertTrue(printed.contains("books.json.catbird-response.json"), printed)
        let sidecar = FileManager.default.contents(atPath: directory.appendingPathComponent("recorded/api/books.json.catbird-response.json").path)
        XCTAssertTrue(String(decoding: sidecar ?? Data(), as: UTF8.self).contains("application/json"))
    }
}
