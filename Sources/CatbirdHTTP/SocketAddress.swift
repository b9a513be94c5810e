#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved listening address, stored as `sockaddr_storage` bytes for `bind` (``ListeningSocket``).
struct SocketAddress {
    var storage = sockaddr_storage()
    var isIPv6 = false

    /// Resolves `host` (literal or name, via getaddrinfo) and sets `port`.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``.
    init(host: String, port: UInt16) throws(HTTPServerError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &result)
        guard status == 0, let first = result else {
            throw .cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(result) }
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        isIPv6 = first.pointee.ai_family == AF_INET6
        withUnsafeMutablePointer(to: &storage) { pointer in
            if isIPv6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = port.bigEndian }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = port.bigEndian }
            }
        }
    }

    /// Why no socket can listen on this address, or nil: an IPv4-mapped IPv6 address
    /// (`::ffff:127.0.0.1`), which a socket listening for IPv6 only (as this server's does for
    /// an IPv6 address) never takes, and a link-local IPv6 address (`fe80::/10`) without its
    /// interface (`%eth0`). Both fail with `EINVAL` whatever the port (tester finding tester54c-F5:
    /// a bare "Invalid argument", and exit 1, which a supervisor restarts on).
    var unusableReason: String? {
        guard isIPv6 else { return nil }
        return withUnsafeBytes(of: storage) { raw -> String? in
            let address = raw.load(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                let ipv4 = bytes[12...].map(String.init).joined(separator: ".")
                return "an IPv4-mapped IPv6 address, which a socket listening for IPv6 only never takes (this server listens "
                    + "on an IPv6 address for IPv6 only): listen on the IPv4 address itself, --host \(ipv4)"
            }
            if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 && address.sin6_scope_id == 0 {
                return "a link-local IPv6 address, which needs the interface it is on after a '%' (such as fe80::1%eth0)"
            }
            return nil
        }
    }
}
