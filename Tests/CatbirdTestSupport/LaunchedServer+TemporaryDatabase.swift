import Foundation

extension LaunchedServer {
    /// Runs `body` with a `catbird` process on a fresh database in a new temporary directory
    /// (`--log-level warning` plus `arguments`), and its client; then terminates the server and
    /// removes the directory.
    /// - Throws: what launching or `body` throws.
    public static func withTemporaryDatabase(
        _ arguments: [String] = [], _ body: (LaunchedServer, RawHTTPClient) throws -> Void
    ) throws {
        try withTemporaryDatabase(arguments) { server, client, _ in try body(server, client) }
    }

    /// ``withTemporaryDatabase(_:_:)-(_,(LaunchedServer,RawHTTPClient)->Void)`` also giving
    /// `body` the database file's path; `body` may terminate the server itself.
    /// - Throws: what launching or `body` throws.
    public static func withTemporaryDatabase(
        _ arguments: [String] = [], _ body: (LaunchedServer, RawHTTPClient, _ databasePath: String) throws -> Void
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-launched-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let server = try LaunchedServer(
            ["--port", "\(try FreePort.next())", "--db", database, "--log-level", "warning"] + arguments, in: directory)
        defer { if server.process.isRunning { _ = try? server.terminate() } }
        try body(server, try server.client(), database)
    }

    /// `VmHWM` (peak resident memory) of the server process in megabytes, from /proc/<pid>/status.
    /// - Throws: ``Failure`` when the file has no such line.
    public func peakResidentMegabytes() throws -> Int {
        try residentMegabytes("VmHWM:")
    }

    /// Resets the server process's `VmHWM` to its resident memory now (writes `5` to
    /// /proc/<pid>/clear_refs: proc(5)), so that ``peakResidentMegabytes()`` then gives the peak
    /// of what follows only, not of an earlier upload.
    /// - Throws: when the file cannot be written.
    public func resetPeakResident() throws {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/clear_refs"))
    }

    /// `VmRSS` (resident memory now) of the server process in megabytes.
    /// - Throws: ``Failure`` when the file has no such line.
    public func currentResidentMegabytes() throws -> Int {
        try residentMegabytes("VmRSS:")
    }

    /// The CPU time the server process has used so far (user and system), in seconds, from
    /// /proc/<pid>/stat (fields 14 and 15, in clock ticks: proc(5)); as fine as a tick (10 ms).
    /// - Throws: ``Failure`` when the file cannot be read or parsed.
    public func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        // Fields after the command name, which may hold spaces: ") state ppid …"; utime is 14th.
        guard let afterName = stat.range(of: ") ", options: .backwards) else { throw Failure("no command name in \(stat)") }
        let fields = stat[afterName.upperBound...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw Failure("no utime and stime in /proc/\(process.processIdentifier)/stat: \(stat)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func residentMegabytes(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw Failure("no \(field) in /proc/\(process.processIdentifier)/status") }
        return kilobytes / 1024
    }
}
