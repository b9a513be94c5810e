import CatbirdTestSupport
import Foundation
import XCTest

/// The README's "Writing tests" snippets must compile against this package's CatbirdAPI and
/// CatbirdAppSupport: they are typechecked together, as one module, with `swiftc`.
final class ReadmeSnippetTests: XCTestCase {
    /// XCUIApplication exists on Apple platforms only; on Linux the snippets get a stand-in with
    /// the members they use (nothing else is stubbed), main-actor isolated as the Xcode 16 SDK's
    /// is, so that a snippet making it in a nonisolated `setUp` fails here as it fails there
    /// (tester finding tester48c-F12).
    private static let uiTestingStandIn = """
        #if !canImport(XCUIAutomation) && os(Linux)
        @MainActor open class XCUIApplication {
            public var launchArguments: [String] = []
            public var launchEnvironment: [String: String] = [:]
            public init() {}
            open func launch() {}
            open func typeText(_ text: String) {}
        }
        #endif
        """

    func testWritingTestsSnippetsCompile() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = Self.swiftBlocks(in: try Self.section("## Writing tests", of: readme))
        XCTAssertGreaterThanOrEqual(snippets.count, 3, "the section shows mocks, a test case and the app side")
        XCTAssertTrue(snippets.contains { $0.contains("Catbird(parallelId:") }, "a parallel set-up is shown")
        XCTAssertTrue(snippets.contains { $0.contains("import CatbirdAppSupport") }, "the app-side helper is shown")

        let folder = try SwiftCompiler.scratchFolder("readme-snippets")
        defer { try? FileManager.default.removeItem(at: folder) }
        var files = [folder.appendingPathComponent("StandIn.swift")]
        try Self.uiTestingStandIn.write(to: files[0], atomically: true, encoding: .utf8)
        for (index, snippet) in snippets.enumerated() {
            let file = folder.appendingPathComponent("Snippet\(index + 1).swift")
            try snippet.write(to: file, atomically: true, encoding: .utf8)
            files.append(file)
        }

        let result = try SwiftCompiler.run(
            ["-typecheck", "-swift-version", "6", "-module-name", "ReadmeSnippets", "-I", try SwiftCompiler.modulesDirectory().path]
                + files.map(\.path))
        XCTAssertEqual(result.status, 0, "README snippets do not compile:\n\(result.output)")
    }

    /// The text from `heading` to the next `## ` heading.
    static func section(_ heading: String, of markdown: String) throws -> Substring {
        guard let start = markdown.range(of: "\n\(heading)\n") else { throw FixtureError("README has no \(heading)") }
        let rest = markdown[start.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
        return rest[..<end]
    }

    /// The bodies of the ```swift fenced blocks.
    static func swiftBlocks(in text: Substring) -> [String] {
        text.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }
}
