import CatbirdTestSupport
import Foundation
import XCTest

/// `scripts/run` started in the background by a non-interactive bash script, as the README's
/// snippets do, and stopped with `kill %1; wait`: the server itself must stop, or the next
/// snippet meets a port in use while its health loop talks to the old server (found by a new
/// user). Runs the real `scripts/run` and `scripts/setup.sh` from a copy of the repository's
/// scripts, with two stand-ins only: `swift` on PATH is a stub that builds nothing, and
/// `.build/release/catbird` is the `catbird` built beside the tests (a release build takes
/// minutes on CI).
final class ScriptsRunStopTests: XCTestCase {
    /// A stand-in checkout at `checkout`: the real `scripts/run` and `scripts/setup.sh`,
    /// `.build/release/catbird` linked to the `catbird` built beside the tests, and in
    /// `folder/stubs` a `swift` that builds nothing.
    /// - Returns: the stubs folder, to put first on `PATH`.
    private static func makeCheckout(at checkout: URL, stubsIn folder: URL, from repository: URL) throws -> URL {
        let scripts = checkout.appendingPathComponent("scripts")
        let release = checkout.appendingPathComponent(".build/release")
        let stubs = folder.appendingPathComponent("stubs")
        for folder in [scripts, release, stubs] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        for name in ["run", "setup.sh"] {
            try FileManager.default.copyItem(
                at: repository.appendingPathComponent("scripts/\(name)"), to: scripts.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(
            at: release.appendingPathComponent("catbird"), withDestinationURL: try BuiltProducts.executable(named: "catbird"))
        let swift = stubs.appendingPathComponent("swift")
        try "#!/bin/sh\nexit 0\n".write(to: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        return stubs
    }

    func testKillPercentOneStopsTheServerStartedByScriptsRun() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let stubs = try Self.makeCheckout(at: root, stubsIn: root, from: repository)

        // The README's file-mock snippet as written, on a free port.
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.range(of: "## File mocks, record and replay"), "README section renamed?")
        let start = try XCTUnwrap(readme[section.upperBound...].range(of: "```sh\n"))
        let end = try XCTUnwrap(readme[start.upperBound...].range(of: "```"))
        let port = try FreePort.next()
        let snippet = String(readme[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "8080", with: "\(port)")
        XCTAssertTrue(snippet.contains("kill %1; wait"), snippet)

        var environment = LaunchedServer.childEnvironment(["CATBIRD_LOG_LEVEL": "warning"])
        environment["PATH"] = stubs.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", snippet], in: root, environment: environment, seconds: 60)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains(#"{"books":[]}"#), result.output)
        XCTAssertNil(try? RawHTTPClient(port: port, timeoutSeconds: 2).request("GET", "/catbird/api/health"),
                     "nothing serves on the port once `kill %1; wait` returned")
    }

    /// Relative paths given to `scripts/run` are the caller's, not the repository's (try7a F2:
    /// `cd ws && catbird/scripts/run --db rel.sqlite --mocks-dir mocks` said "the directory
    /// 'mocks' does not exist" for a folder beside the caller, and a database went into the
    /// checkout).
    func testRelativePathsAreTakenFromTheCallersDirectory() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let checkout = root.appendingPathComponent("catbird")
        let workspace = root.appendingPathComponent("ws")
        let mocks = workspace.appendingPathComponent("mocks/api")
        try FileManager.default.createDirectory(at: mocks, withIntermediateDirectories: true)
        let stubs = try Self.makeCheckout(at: checkout, stubsIn: root, from: repository)
        try #"{"books":[]}"#.write(to: mocks.appendingPathComponent("books.json"), atomically: true, encoding: .utf8)

        let port = try FreePort.next()
        let script = """
            ../catbird/scripts/run --port \(port) --db rel.sqlite --mocks-dir mocks &
            for _ in $(seq 200); do curl -fsS http://127.0.0.1:\(port)/api/books.json 2>/dev/null && break; sleep 0.05; done
            kill %1; wait
            """
        var environment = LaunchedServer.childEnvironment(["CATBIRD_LOG_LEVEL": "warning"])
        environment["PATH"] = stubs.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script], in: workspace, environment: environment, seconds: 60)
        XCTAssertTrue(result.output.contains(#"{"books":[]}"#), "the file mock beside the caller is served: \(result.output)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("rel.sqlite").path),
                      "the database is created in the caller's directory")
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkout.appendingPathComponent("rel.sqlite").path),
                       "not in the checkout")
    }
}
