import Foundation

extension LaunchedServer {
    /// Runs `body` with a `catbird` process on a fresh database in a new temporary directory
    /// (`--log-level warning` plus `arguments`), and its client; then terminates the server and
    /// removes the directory.
    /// - Throws: what launching or `body` throws.
    public static func withTemporaryDatabase(
        _ arguments: [String] = [], _ body: (LaunchedServer, RawHTTPClient) throws -> Void
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-launched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", directory.appendingPathComponent("db.sqlite").path, "--log-level", "warning"]
                + arguments,
            in: directory)
        defer { _ = try? server.terminate() }
        try body(server, try server.client())
    }

    /// `VmHWM` (peak resident memory) of the server process in megabytes, from /proc/<pid>/status.
    /// - Throws: ``Failure`` when the file has no such line.
    public func peakResidentMegabytes() throws -> Int {
        try residentMegabytes("VmHWM:")
    }

    /// `VmRSS` (resident memory now) of the server process in megabytes.
    /// - Throws: ``Failure`` when the file has no such line.
    public func currentResidentMegabytes() throws -> Int {
        try residentMegabytes("VmRSS:")
    }

    private func residentMegabytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw Failure("no \(field) in /proc/\(process.processIdentifier)/status") }
        return kilobytes / 1024
    }
}
