import CatbirdTestSupport
import Foundation
import XCTest

/// tester48c-F9: the server's JSON writers (`CatbirdNearMiss.writeMismatch(…)`,
/// `RequestPattern.writeJSON(to:)`, `BodyText`, …) were public API of `import CatbirdAPI`, some
/// taking a `ByteWriter` a user cannot name. They are `package` now: code outside this package
/// cannot see them, while the wire types stay.
final class ClientInterfaceTests: XCTestCase {
    func testTheServersWritersAreNotPartOfTheClientsInterface() throws {
        let folder = try SwiftCompiler.scratchFolder("client-interface")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("User.swift")
        try """
            import CatbirdAPI
            var bytes: [UInt8] = []
            RequestPattern(method: .GET, url: "/x").writeJSON(to: &bytes)
            let shown = CatbirdNearMiss.shownValueBytes
            let text = BodyText.text(of: [UInt8](), contentType: nil)
            let kept: CatbirdNearMiss? = nil  // the wire type itself stays
            """.write(to: file, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.run(
            ["-typecheck", "-swift-version", "6", "-module-name", "UserTests", "-I", try SwiftCompiler.modulesDirectory().path, file.path])
        XCTAssertNotEqual(result.status, 0, result.output)
        let errors = result.output.components(separatedBy: "\n").filter { $0.contains("User.swift:") && $0.contains(": error:") }
        XCTAssertEqual(errors.filter { $0.contains("User.swift:3:") || $0.contains("User.swift:4:") || $0.contains("User.swift:5:") }.count,
                       errors.count, "only the three uses of the server's writers are refused:\n\(result.output)")
        for line in [3, 4, 5] { XCTAssertTrue(result.output.contains("User.swift:\(line):"), "line \(line) compiled:\n\(result.output)") }
    }
}
