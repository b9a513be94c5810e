#if canImport(Glibc)
import Glibc
#endif

/// A client's IP address as read from its connection (IPv4 or IPv6), formatted as text only
/// when asked: only forwarding needs it (`X-Forwarded-For`), and every request has one.
struct ClientAddress: Sendable {
    /// `AF_INET`, `AF_INET6`, or 0 when unknown.
    let family: Int32
    /// The address in network byte order: the first 4 bytes for IPv4, all 16 for IPv6.
    let bytes: SIMD16<UInt8>

    static let unknown = ClientAddress(family: 0, bytes: .zero)

    /// `127.0.0.1`, `::1` (`inet_ntop`); empty when unknown.
    var text: String {
        guard family == AF_INET || family == AF_INET6 else { return "" }
        var address = bytes
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN)) { buffer in
            let written = withUnsafeBytes(of: &address) { inet_ntop(family, $0.baseAddress, buffer.baseAddress, socklen_t(buffer.count)) }
            return written == nil ? "" : String(cString: buffer.baseAddress!)
        }
    }
}
