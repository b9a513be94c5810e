import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `catbird` server process started from the built executable, for tests of the binary as
/// users run it (flags, environment, signals, kill -9). ``terminate(signal:)`` sends a signal
/// and collects the exit; a server still running when this is dropped is killed.
public final class LaunchedServer {
    public let process = Process()
    public let port: UInt16
    private let stderrFile: URL
    private let stderrHandle: FileHandle
    private var finished = false

    /// A launch or exit that did not go as the test needs.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Starts `catbird arguments` (which must include `--port N`) in `directory` and waits (at
    /// most 30 s) until `GET /catbird/api/health` answers 200.
    /// - Parameter environment: added to this process's environment, from which every
    ///   `CATBIRD_*` variable is removed first.
    /// - Parameter stderrPipe: the server's standard error instead of a file (``stderrText`` is
    ///   then empty); a test reads or closes its reading end.
    /// - Parameter openFileLimit: started under this open-file limit, soft and hard
    ///   (`prlimit --nofile=N:N`, which then execs it, so its process is the server's); nil: this process's.
    /// - Parameter closedStandardError: started with descriptor 2 closed (`catbird 2>&-`);
    ///   ``stderrText`` is then empty.
    /// - Throws: ``Failure`` when it exits first or never becomes healthy.
    public init(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], stderrPipe: Pipe? = nil,
        openFileLimit: Int? = nil, closedStandardError: Bool = false
    ) throws {
        let portArgument = arguments.firstIndex(of: "--port").map { arguments[$0 + 1] }
            ?? arguments.first { $0.hasPrefix("--port=") }.map { String($0.dropFirst("--port=".count)) }
        guard let portText = portArgument, let port = UInt16(portText) else { throw Failure("no --port in \(arguments)") }
        self.port = port
        let executable = try BuiltProducts.executable(named: "catbird")
        if closedStandardError {
            // Through a shell that closes descriptor 2 and then execs it, so its process is the server's.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec "$0" "$@" 2>&-"#, executable.path] + arguments
        } else if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFileLimit):\(openFileLimit)", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = Self.childEnvironment(environment)
        process.currentDirectoryURL = directory
        stderrFile = directory.appendingPathComponent("server-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        stderrHandle = try FileHandle(forWritingTo: stderrFile)
        process.standardError = stderrPipe ?? stderrHandle
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw Failure("catbird exited with \(process.terminationStatus) before serving: \(stderrText)")
            }
            if let client = try? RawHTTPClient(port: port, timeoutSeconds: 5),
               let health = try? client.request("GET", "/catbird/api/health"), health.status == 200 {
                return
            }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        finished = true
        throw Failure("catbird did not become healthy on port \(port): \(stderrText)")
    }

    /// The environment for a child: this process's, without any `CATBIRD_*` variable, plus `extra`.
    public static func childEnvironment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CATBIRD_") }
        environment.merge(extra) { $1 }
        return environment
    }

    /// A new keep-alive connection to the server.
    public func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: port)
    }

    /// What the server has written to standard error so far.
    public var stderrText: String {
        (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? ""
    }

    /// Sends `signal` (SIGTERM by default) and waits (at most 30 s) for the exit.
    /// - Throws: ``Failure`` when it does not exit in time (it is then killed).
    public func terminate(signal: Int32 = SIGTERM) throws -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        kill(process.processIdentifier, signal)
        try Self.wait(for: process, seconds: 30)
        finished = true
        try? stderrHandle.close()
        return (process.terminationStatus, process.terminationReason, stderrText)
    }

    /// Waits for `process` to exit; kills it and throws after `seconds`.
    public static func wait(for process: Process, seconds: Int) throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure("catbird did not exit within \(seconds) s")
        }
        process.waitUntilExit()
    }

    deinit {
        if !finished && process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? stderrHandle.close()
    }
}
