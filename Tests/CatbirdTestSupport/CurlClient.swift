import Foundation

/// The `curl` command-line client (installed by scripts/setup.sh), for requests a real client
/// sends: through a proxy (`--proxy`), chunked uploads, `Expect: 100-continue`, compression.
public enum CurlClient {
    /// What curl received: the final response's status and header fields, and the body bytes.
    public struct Response {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]

        /// The first value of a field, name compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// Every value of a field, in order.
        public func headers(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON object, or an empty one.
        public var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `curl -s <arguments>` with the given body on stdin (pass `--data-binary @-` or
    /// `-T -` to send it) and reads the last response. The environment's proxy variables are
    /// cleared so only `--proxy` routes through a proxy.
    /// - Throws: ``Failure`` when curl exits non-zero (its message included).
    public static func run(_ arguments: [String], stdin: [UInt8] = [], timeoutSeconds: Int = 60) throws -> Response {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("catbird-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headerFile = directory.appendingPathComponent("headers").path
        let bodyFile = directory.appendingPathComponent("body").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-sS", "--max-time", "\(timeoutSeconds)", "-D", headerFile, "-o", bodyFile] + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"] {
            environment[name] = nil
        }
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(stdin))
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "curl \(arguments) exited \(process.terminationStatus): \(message)")
        }
        let head = String(decoding: FileManager.default.contents(atPath: headerFile) ?? Data(), as: UTF8.self)
        // -D writes every response (a 100 Continue first): the last block is the final one.
        let blocks = head.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        var lines = (blocks.last ?? "").components(separatedBy: "\r\n")
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let body = FileManager.default.contents(atPath: bodyFile).map { Array($0) } ?? []
        return Response(status: status, headers: headers, body: body)
    }
}
