#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// Checks that `host` is an address or a name that resolves (getaddrinfo), without binding.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``.
    public static func checkResolvable(host: String) throws(HTTPServerError) {
        _ = try SocketAddress(host: host, port: 0)
    }

    /// Checks, before anything else is set up, that `host:port` can be bound now: binds a
    /// socket there (with `SO_REUSEADDR`, as libmicrohttpd does) and closes it again. Port 0
    /// always can. Another process may still take the port before ``start()``, which then
    /// fails as usual; this check only spares the caller work (creating and migrating a
    /// database) that a busy port would make pointless.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``, or
    ///   ``HTTPServerError/portUnavailable(host:port:reason:)`` with the `bind` error's text.
    public static func checkAvailable(host: String, port: UInt16) throws(HTTPServerError) {
        guard port != 0 else { return }
        var address = try SocketAddress(host: host, port: port)
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let probe = socket(address.isIPv6 ? AF_INET6 : AF_INET, stream, 0)
        guard probe >= 0 else { return }  // cannot probe; start() will tell
        defer { close(probe) }
        var on: Int32 = 1
        setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address.storage) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            let reason = code == EADDRINUSE ? "the port is in use by another process" : String(cString: strerror(code))
            throw .portUnavailable(host: host, port: port, reason: reason)
        }
    }
}
