import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a free loopback port that records every request's exact bytes
/// (request line, headers, body) and answers each with a fixed status and body. It shows what
/// the client really puts on the wire, which a Catbird server's journal does not record for
/// `/catbird` calls.
final class CaptureServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are immutable; `captured` and `connections`
    // are touched only under `lock`.

    /// One request as received.
    struct Request {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: Data

        /// The first value of a header, name compared case-insensitively.
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// How many times a header appears.
        func count(of name: String) -> Int {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.count
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let port: UInt16
    private let listener: Int32
    private let status: Int
    private let responseBody: String
    private let lock = NSLock()
    private var captured: [Request] = []
    private var connections: [Int32] = []

    /// Starts listening. Every request is answered with `status` and `body`; with status 0
    /// requests are recorded and never answered.
    init(status: Int = 201, body: String = "") throws {
        self.status = status
        self.responseBody = body
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket() failed") }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw Failure(description: "bind/listen failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:<port>`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests received so far, in order.
    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return captured
    }

    /// Stops accepting and closes every connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        lock.lock()
        let open = connections
        connections = []
        lock.unlock()
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            lock.lock()
            connections.append(connection)
            lock.unlock()
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        while let request = read(from: connection, buffer: &buffer) {
            lock.lock()
            captured.append(request)
            lock.unlock()
            if status == 0 { continue }
            let reason = status == 201 ? "Created" : "Status"
            let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: \(responseBody.utf8.count)\r\n"
                + (responseBody.isEmpty ? "" : "Content-Type: text/plain\r\n") + "\r\n"
            guard write(Array((head + responseBody).utf8), to: connection) else { return }
        }
    }

    /// Reads one request; nil when the connection closes.
    private func read(from connection: Int32, buffer: inout [UInt8]) -> Request? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { Array(buffer[$0..<($0 + 4)]) == separator }
            if headEnd == nil, !fill(&buffer, from: connection) { return nil }
        }
        guard let end = headEnd else { return nil }
        var lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(end + 4)
        let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard requestLine.count == 3 else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var request = Request(method: requestLine[0], target: requestLine[1], headers: headers, body: Data())
        if request.header("Expect")?.lowercased() == "100-continue" {
            guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection) else { return nil }
        }
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard fill(&buffer, from: connection) else { return nil }
        }
        request.body = Data(buffer[..<length])
        buffer.removeFirst(length)
        return request
    }

    private func fill(_ buffer: inout [UInt8], from connection: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
