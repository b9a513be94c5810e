#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// The numeric address a server bound to `host` listens on: `host` itself for an address,
    /// the first address getaddrinfo gives for a name (what ``start()`` binds, one address:
    /// `localhost` → `127.0.0.1` where that comes first), nil when it does not resolve. For the
    /// start-up log's URL, which a client must be able to use as given (try9a F9: `--host
    /// localhost` logged `http://localhost:…`, which IPv6-first clients resolve to `::1`, where
    /// nothing listens).
    public static func boundAddress(of host: String) -> String? {
        guard var address = try? SocketAddress(host: host, port: 0) else { return nil }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let status = withUnsafePointer(to: &address.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
