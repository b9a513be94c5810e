import CatbirdTestSupport
import Foundation

/// `swiftc` from the toolchain that built the tests, for tests that compile user code against
/// the built client modules.
enum SwiftCompiler {
    /// `.build/<configuration>/Modules`, where SwiftPM puts the built modules.
    static func modulesDirectory() throws -> URL {
        let folder = try BuiltProducts.executable(named: "catbird").deletingLastPathComponent().appendingPathComponent("Modules")
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("CatbirdAPI.swiftmodule").path) else {
            throw FixtureError("no CatbirdAPI.swiftmodule in \(folder.path)")
        }
        return folder
    }

    /// `-Xcc -fmodule-map-file=…` for each C target SwiftPM built (a `module.modulemap` in
    /// `.build/<configuration>/<target>.build/`): the client's modules import CatbirdSupport,
    /// which imports the C target CByteSearch, and a package depending on CatbirdAPI gets these
    /// flags from SwiftPM.
    static func clangModuleFlags() throws -> [String] {
        let bin = try modulesDirectory().deletingLastPathComponent()
        let entries = try FileManager.default.contentsOfDirectory(atPath: bin.path).filter { $0.hasSuffix(".build") }.sorted()
        return entries.map { bin.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
            .flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] }
    }

    /// Runs `swiftc arguments` (with ``clangModuleFlags()``) and returns its exit status and
    /// combined output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"] ?? "") + ":/opt/swift/usr/bin"
        process.environment = environment
        process.arguments = ["swiftc"] + arguments + (try clangModuleFlags())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// A new empty folder for compiler inputs and outputs; the caller removes it.
    static func scratchFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
