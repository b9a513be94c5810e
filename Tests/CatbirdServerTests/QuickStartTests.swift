import CatbirdTestSupport
import Foundation
import XCTest

/// The README's quick start, run as a new user would paste it (bash and curl) against a real
/// server: every `# expected` line appears in order, and a second run on the same database
/// prints exactly the same.
final class QuickStartTests: XCTestCase {
    func testTheQuickStartPrintsWhatItSaysAndTheSameWhenRunTwice() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## Quick start"), let end = readme[start.upperBound...].range(of: "\n## ") else {
            throw FixtureError("README has no quick start section")
        }
        let section = readme[start.upperBound..<end.lowerBound]
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
        XCTAssertGreaterThanOrEqual(blocks.count, 4, "the quick start's shell blocks")
        let script = blocks.joined(separator: "\n")
        // The expected output: the comment lines, without a trailing "   (note)".
        let expected = script.split(separator: "\n").filter { $0.hasPrefix("# ") }.map { line -> String in
            let text = String(line.dropFirst(2))
            return text.range(of: "   (").map { String(text[..<$0.lowerBound]) } ?? text
        }
        XCTAssertGreaterThanOrEqual(expected.count, 6, "\(expected)")

        let server = try TestServer()
        defer { server.removeFiles() }
        let aimed = script.replacingOccurrences(of: "http://127.0.0.1:8080", with: "http://127.0.0.1:\(server.port)")
        XCTAssertNotEqual(aimed, script, "the quick start talks to http://127.0.0.1:8080")
        let first = try run(aimed)
        let second = try run(aimed)
        for output in [first, second] {
            var rest = Substring(output)
            for line in expected {
                guard let found = rest.range(of: line) else {
                    XCTFail("the quick start did not print \(line) (in order); it printed:\n\(output)")
                    break
                }
                rest = rest[found.upperBound...]
            }
        }
        XCTAssertEqual(first, second, "a second run prints the same")
    }

    /// Runs `script` with bash (`set -e`), returning standard output without `Date:` headers.
    private func run(_ script: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quick-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ChildProcesses.run(
            URL(fileURLWithPath: "/bin/bash"), ["-e", "-c", script], in: directory, seconds: 60)
        XCTAssertEqual(result.status, 0, result.output)
        // curl -i prints header lines ending in CRLF, which Swift keeps as one Character.
        return result.stdout.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("date:") }.joined(separator: "\n")
    }
}
