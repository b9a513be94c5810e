#if canImport(Glibc)
import Glibc
#endif

/// The IP addresses a proxy-form control request may name (docs/files.md#host-names): through
/// a `--proxy` server, `http://203.0.113.5/catbird/api/tenants` reached the control routes
/// whatever the address, so a page a proxied browser loaded from any IP address read every
/// journal and dropped every tenant as its own origin (tester finding tester46c-F4). An
/// address in `Host` is this machine's (the browser connected to it); in absolute form only
/// these are.
extension ControlHosts {
    /// Whether the host of `authority` (`host[:port]`, an IP address literal) is a loopback
    /// address (`127.0.0.0/8`, `::1`, `::ffff:127.0.0.0/104`) or the alias of the host's
    /// loopback inside an Android emulator (`10.0.2.2`) or Genymotion (`10.0.3.2`).
    static func isOwnAddress(_ authority: String) -> Bool {
        let host = hostPart(of: authority)
        if host.hasPrefix("[") {
            var address = in6_addr()
            guard host.hasSuffix("]"), inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1 else { return false }
            let bytes = withUnsafeBytes(of: address) { Array($0) }
            if bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            return bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
        }
        let texts = host.split(separator: ".", omittingEmptySubsequences: false)
        // A part with a leading zero is octal to curl, browsers and inet_aton (`010.0.2.2` is
        // 8.0.2.2; tester finding tester47a-F8: it was read as 10.0.2.2): none is taken.
        guard texts.allSatisfy({ $0 == "0" || !$0.hasPrefix("0") }) else { return false }
        let parts = texts.map { Int($0) }
        guard parts.count == 4, parts.allSatisfy({ ($0 ?? 256) <= 255 }) else { return false }
        let octets = parts.map { $0! }
        return octets[0] == 127 || octets == [10, 0, 2, 2] || octets == [10, 0, 3, 2]
    }

    /// The host of `authority` without its port (`[::1]:8080` → `[::1]`, `127.0.0.1.` →
    /// `127.0.0.1`), lowercased.
    static func hostPart(of authority: String) -> String {
        var host = Substring(authority.lowercased())
        if let colon = host.lastIndex(of: ":"), !host[host.index(after: colon)...].contains("]") {
            host = host[..<colon]
        }
        if host.count > 1, host.hasSuffix(".") { host = host.dropLast() }
        return String(host)
    }
}
