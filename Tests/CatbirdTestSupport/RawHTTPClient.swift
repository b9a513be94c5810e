import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as read off the socket.
public struct RawResponse: Sendable {
    public let status: Int
    /// Header fields in order received.
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    /// The first value of a header, name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (`[String: Any]`, `[Any]`, …), or nil when it is not JSON.
    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }

    /// The body parsed as a JSON object, or an empty dictionary.
    public var object: [String: Any] { json as? [String: Any] ?? [:] }
}

/// A minimal HTTP/1.1 client over one keep-alive TCP connection to 127.0.0.1, for tests that
/// must control the exact bytes sent (fixture replay, proxy-form targets). Reads responses
/// framed by Content-Length or chunked (streamed bodies of unknown length).
public final class RawHTTPClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

    public struct ClientError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to `127.0.0.1:port`, or `[::1]:port` with `ipv6` (the connect completes in the
    /// kernel, whether or not the server accepted the connection yet). Reads time out after
    /// `timeoutSeconds`.
    /// - Parameter receiveBuffer: the socket's receive buffer in bytes (`SO_RCVBUF`, set before
    ///   connecting so that the window offered matches), for a client that does not read and
    ///   must leave the server's answer in the server's hands; nil: the system's default.
    public init(port: UInt16, timeoutSeconds: Int = 30, receiveBuffer: Int32? = nil, ipv6: Bool = false) throws {
        socket = Glibc.socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ClientError(description: "socket() failed") }
        if var size = receiveBuffer {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, "::1", &address.sin6_addr)
            connected = Self.connect(socket, to: &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            connected = Self.connect(socket, to: &address)
        }
        guard connected == 0 else {
            close(socket)
            throw ClientError(description: "connect to \(ipv6 ? "[::1]" : "127.0.0.1"):\(port) failed: errno \(errno)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(socket)
    }

    /// `connect(2)` of `socket` to `address` (a `sockaddr_in` or `sockaddr_in6`).
    private static func connect<Address>(_ socket: Int32, to address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// Hangs up (shuts the socket down both ways: the server sees the client go).
    public func hangUp() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Shuts down the sending side only (`shutdown(SHUT_WR)`, as `nc -N` does after its input):
    /// the server reads the end of the stream, and this client still reads its answers.
    public func halfClose() {
        shutdown(socket, Int32(SHUT_WR))
    }

    /// Sends `bytes` and then shuts down the sending side, the bytes and the end of stream (FIN)
    /// in one TCP segment (`TCP_CORK` held over both): the server finds the request and the FIN
    /// together at its first read, as it does by chance when it reads late (a loaded machine).
    public func sendHalfClosing(raw bytes: [UInt8]) throws {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size))
        try send(raw: bytes)
        halfClose()  // the FIN joins the corked bytes, and the shutdown sends them
    }

    /// One `send` of no bytes, as Python's `sendall(b"")` makes: throws when the socket has been
    /// reset (a client that checks its connection so after sending a batch, and gives up on the
    /// answers it has not read).
    public func sendNothing() throws {
        guard Glibc.send(socket, nil, 0, Int32(MSG_NOSIGNAL)) == 0 else { throw ClientError(description: "send failed: errno \(errno)") }
    }

    /// Sends `bytes` exactly as given.
    public func send(raw bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Sends a request built from its parts and reads the response. Adds `Host: 127.0.0.1`
    /// unless `headers` has a Host (proxy-form requests carry the origin's), and a
    /// Content-Length for a body.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> RawResponse {
        try send(method, target, headers: headers, body: body)
        return try readResponse(forHead: method == "HEAD")
    }

    /// Sends a request built from its parts as ``request(_:_:headers:body:)`` does, without
    /// reading the response (``readResponse(forHead:)`` reads it later).
    public func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(raw: Array(head.utf8) + (body ?? []))
    }

    /// Sends a JSON body (`Content-Type: application/json`), e.g. a control action.
    public func json(
        _ method: String, _ target: String, _ jsonText: String, headers: [(String, String)] = []
    ) throws -> RawResponse {
        try request(method, target, headers: [("Content-Type", "application/json")] + headers, body: Array(jsonText.utf8))
    }

    /// Every byte the server sends until it closes the connection (or the read times out),
    /// what was already buffered included; for checking that nothing follows a response.
    public func readToEnd() -> [UInt8] {
        var bytes = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Every byte the server sends until it closes the connection, or sends nothing within
    /// `firstByteWithin` milliseconds, or nothing more for `quietAfter` milliseconds after the
    /// last bytes; what was buffered included.
    public func readUntilQuiet(firstByteWithin: Int32, quietAfter: Int32) -> [UInt8] {
        var bytes = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, bytes.isEmpty ? firstByteWithin : quietAfter) > 0 else { return bytes }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Up to `count` bytes (what was buffered first), reading for at most `seconds`: a slow
    /// reader that takes a part of a large answer and leaves the rest in the server's hands.
    public func read(upTo count: Int, within seconds: Double) -> [UInt8] {
        var bytes = Array(buffer.prefix(count))
        buffer.removeFirst(bytes.count)
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while bytes.count < count, ContinuousClock.now < deadline {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let wanted = min(chunk.count, count - bytes.count)
            let received = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, wanted, 0) }
            guard received > 0 else { break }
            bytes += chunk[..<received]
        }
        return bytes
    }

    /// Every byte the server sends within `seconds`, what was buffered included, and whether
    /// the server closed (or reset) the connection in that time.
    public func readUntilClosed(within seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var bytes = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (bytes, false) }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))) > 0
            else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return (bytes, true) }
            bytes += chunk[..<count]
        }
    }

    /// Reads one response.
    public func readResponse(forHead: Bool = false) throws -> RawResponse {
        let headEnd = try readUntilHeadEnd()
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line in: \(head)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let noBody = forHead || status == 204 || status == 304 || status < 200
        if !noBody, headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            return RawResponse(status: status, headers: headers, body: try readChunkedBody())
        }
        let length = noBody ? 0 : Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads a chunked body (RFC 9112 §7.1): hex size lines, data, and a last chunk of size 0
    /// followed by an empty trailer section.
    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine()
            guard let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) else {
                throw ClientError(description: "bad chunk size line: \(line)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailer fields
                return body
            }
            while buffer.count < size + 2 { try fill() }
            body.append(contentsOf: buffer[..<size])
            buffer.removeFirst(size + 2)
        }
    }

    /// One line without its CRLF.
    private func readLine() throws -> String {
        while true {
            if let end = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            try fill()
        }
    }

    private func readUntilHeadEnd() throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                for index in searchFrom...(buffer.count - 4)
                where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index
                }
                searchFrom = buffer.count - 3
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw ClientError(description: count == 0 ? "connection closed by server" : "recv failed: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[..<count])
    }
}
