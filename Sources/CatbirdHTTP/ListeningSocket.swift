#if canImport(Glibc)
import Glibc
#endif

/// The server's listening socket, opened as libmicrohttpd 0.9.75 opens its own when it listens
/// itself: `SO_REUSEADDR` (a restart binds a port whose old connections are in TIME_WAIT), an
/// IPv6 address listened on for IPv6 only (`IPV6_V6ONLY`, as without `MHD_USE_DUAL_STACK`),
/// a backlog of `SOMAXCONN`. Clients beyond the connection limit wait in that backlog.
enum ListeningSocket {
    /// Binds `address` and listens; returns the socket, or nil with `errno` set.
    static func open(_ address: SocketAddress) -> Int32? {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let listener = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { return nil }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, size)
        if address.isIPv6 { setsockopt(listener, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, size) }
        var storage = address.storage
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, SOMAXCONN) == 0 else {
            let code = errno
            close(listener)
            errno = code
            return nil
        }
        return listener
    }

    /// The port `listener` is bound to (`getsockname`), or 0 when unknown.
    static func port(of listener: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard found == 0 else { return 0 }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET: return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6: return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            default: return 0
            }
        }
    }
}
