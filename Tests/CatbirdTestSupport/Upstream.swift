import Foundation
import XCTest

/// A real upstream HTTP/1.1 server process (`Tests/Upstream/upstream.py`, Python's
/// `http.server`) on a free loopback port, for the redirect, proxy and record tests. See the
/// script's docstring for what each path answers. Stopped on deinit.
public final class Upstream {
    public let process = Process()
    public let port: UInt16

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether it speaks HTTPS (``init(tls:)``).
    public let isTLS: Bool

    /// Starts the script with `python3` (installed by scripts/setup.sh) and reads its port.
    /// - Parameter tls: a PEM certificate and key file to serve HTTPS with; nil: plain HTTP.
    /// - Throws: ``StartError`` when python3 is missing or the script prints no port in 30 s.
    public convenience init(tls: (certificate: String, key: String)? = nil) throws {
        try self.init(arguments: tls.map { ["--tls", $0.certificate, $0.key] } ?? [], isTLS: tls != nil)
    }

    /// Starts Python's file server (the handler of `python3 -m http.server`) on `directory`
    /// instead of the echoing upstream, on a port it binds itself and reports.
    /// - Throws: ``StartError`` as ``init(tls:)``.
    public convenience init(directory: String) throws {
        try self.init(arguments: ["--directory", directory], isTLS: false)
    }

    private init(arguments: [String], isTLS: Bool) throws {
        self.isTLS = isTLS
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Upstream/upstream.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = Self.readLine(output.fileHandleForReading, timeout: .seconds(30))
        guard let line, let port = UInt16(line) else {
            process.terminate()
            throw StartError(description: "upstream.py printed no port (got \(line ?? "nothing"))")
        }
        self.port = port
    }

    /// `http://127.0.0.1:<port>`, or `https://localhost:<port>` over TLS (a name, so that the
    /// client sends it as SNI and checks it in the certificate).
    public var baseURL: String { isTLS ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }

    /// Stops the process and waits for it, so the port refuses connections afterwards.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        stop()
    }

    private static func readLine(_ handle: FileHandle, timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while ContinuousClock.now < deadline {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}

/// Base class for suites whose every test forwards to a fresh plain-HTTP ``Upstream``, stopped
/// after each test.
open class UpstreamTestCase: XCTestCase {
    /// This test's upstream.
    public private(set) var upstream: Upstream!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        upstream = try Upstream()
    }

    override open func tearDown() {
        upstream?.stop()
        upstream = nil
        super.tearDown()
    }
}
