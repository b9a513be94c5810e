import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with its output captured in files (pipes could fill up and
/// block a chatty child), killing it when it overstays.
public enum ProcessRunner {
    /// What a finished run left.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        /// Both streams, for failure messages.
        public var output: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
        /// Standard output split into lines.
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// The run took longer than allowed and was killed.
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` with `arguments` in `directory` and waits for it.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (nil: this process's).
    ///   - seconds: how long it may run before it is killed with SIGKILL.
    /// - Throws: ``TimedOut`` when killed; whatever `Process.run()` throws when it cannot start.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String]? = nil, seconds: Int = 60
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = directory
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("run-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("run-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TimedOut(description: "\(executable.lastPathComponent) \(arguments) did not exit within \(seconds) s")
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }

    /// The repository's root folder (this file is `Tests/CatbirdTestSupport/ProcessRunner.swift`).
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
