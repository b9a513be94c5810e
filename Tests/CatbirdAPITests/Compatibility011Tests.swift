import CatbirdAPI
import CatbirdTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Catbird 0.11 source compatibility: 0.11-style user code (Tests/Fixtures/catbird-0.11-user-code)
/// compiles unchanged against the built CatbirdAPI in Swift 5 and Swift 6 language modes with
/// warnings as errors; and what it relies on at run time behaves as in 0.11.
final class Compatibility011Tests: CatbirdTestCase {
    private static let corpus = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/catbird-0.11-user-code")

    func testTheCorpusCompilesInSwift5AndSwift6ModesWithWarningsAsErrors() throws {
        let folder = try SwiftCompiler.scratchFolder("catbird-011-corpus")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".swift") }.sorted()
        let userFiles = files.filter { $0 != "OtherHTTPModule.swift" }
        XCTAssertGreaterThanOrEqual(userFiles.count, 4, "\(files)")
        let text = try userFiles.map { try String(contentsOf: Self.corpus.appendingPathComponent($0), encoding: .utf8) }.joined()
        for shape in [
            "RequestPattern.HTTPMethod(name)", "CatbirdError.errorDomain = ", "import OtherHTTP", "let method: HTTPMethod = .get",
            "extension Catbird {", "func count(matching mock: CatbirdMockConvertible) -> Int", "@MainActor",
            "self.status = error == nil", "Catbird.session.invalidateAndCancel()", "LoginMock: CatbirdMockConvertible",
        ] {
            XCTAssertTrue(text.contains(shape), "the corpus no longer exercises `\(shape)`")
        }

        // The other module that exports `HTTPMethod`, compiled first.
        let other = try SwiftCompiler.run([
            "-emit-module", "-parse-as-library", "-module-name", "OtherHTTP", "-swift-version", "5",
            "-emit-module-path", folder.appendingPathComponent("OtherHTTP.swiftmodule").path,
            Self.corpus.appendingPathComponent("OtherHTTPModule.swift").path,
        ])
        XCTAssertEqual(other.status, 0, other.output)

        let modules = try SwiftCompiler.modulesDirectory()
        for mode in ["5", "6"] {
            let result = try SwiftCompiler.run(
                ["-typecheck", "-swift-version", mode, "-warnings-as-errors", "-module-name", "Suite011",
                 "-I", modules.path, "-I", folder.path] + userFiles.map { Self.corpus.appendingPathComponent($0).path })
            XCTAssertEqual(result.status, 0, "0.11-style code does not compile in Swift \(mode) mode:\n\(result.output)")
            XCTAssertFalse(result.output.contains("warning:"), "Swift \(mode) mode:\n\(result.output)")
        }
    }

    func testTheCompilerRunFailsOnAWarning() throws {
        // The referee can fail: the same compiler call rejects code whose only fault is a warning.
        let folder = try SwiftCompiler.scratchFolder("catbird-011-control")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Warning.swift")
        try "import CatbirdAPI\nfunc f() { let unused = RequestPattern.HTTPMethod.GET }\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.run(
            ["-typecheck", "-swift-version", "6", "-warnings-as-errors", "-module-name", "Control",
             "-I", try SwiftCompiler.modulesDirectory().path, file.path])
        XCTAssertNotEqual(result.status, 0, result.output)
    }

    func testEveryAccessToTheDefaultSessionIsANewSessionThatSurvivesAnotherOnesInvalidation() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let first = Catbird.session
        first.invalidateAndCancel()  // what 0.11's own tests did in tear-down
        let catbird = Catbird(url: server.baseURL)
        XCTAssertFalse(catbird.session === first)
        try catbird.send(.add(LoginMock.success))

        let sent = expectation(description: "completion")
        catbird.send(.remove(LoginMock.success)) { error in
            XCTAssertNil(error)
            XCTAssertTrue(Thread.isMainThread, "the default session calls back on the main queue, as in 0.11")
            sent.fulfill()
        }
        wait(for: [sent], timeout: 30)
        XCTAssertEqual(try catbird.mocks().count, 0)
    }

    func testACompletionClosureMayTouchMainActorState() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let panel = MockPanel(catbird: Catbird(url: server.baseURL))
        let done = expectation(description: "panel updated")
        MainActor.assumeIsolated {
            panel.install(LoginMock.success) { done.fulfill() }
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(MainActor.assumeIsolated { panel.status }, "installed")
        XCTAssertEqual(try server.appRequest("POST", "/login").status, 200)
    }

    func testAHTTPMethodFromAStringIsNotOptional() {
        let method = RequestPattern.HTTPMethod("PROPFIND")
        XCTAssertEqual(RequestPattern(method: method, url: "/dav").method.rawValue, "PROPFIND")
    }
}

/// Main-actor state updated from a completion closure, as 0.11 users wrote.
@MainActor
private final class MockPanel {
    private(set) var status = "idle"
    private let catbird: Catbird

    nonisolated init(catbird: Catbird) {
        self.catbird = catbird
    }

    func install(_ mock: CatbirdMockConvertible, then: @escaping () -> Void) {
        catbird.send(.add(mock)) { error in
            self.status = error == nil ? "installed" : "failed"
            then()
        }
    }
}
