#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// Checks that `host` is an address or a name that resolves (getaddrinfo), to an address a
    /// socket can listen on (``SocketAddress/unusableReason``), without binding.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``, ``HTTPServerError/unusableAddress(host:reason:)``.
    public static func checkResolvable(host: String) throws(HTTPServerError) {
        if let reason = try SocketAddress(host: host, port: 0).unusableReason { throw .unusableAddress(host: host, reason: reason) }
    }

    /// Checks, before anything else is set up, that `host:port` can be bound now: opens the
    /// listening socket exactly as ``start()`` will (``ListeningSocket/open(_:)``:
    /// `SO_REUSEADDR`, IPv6 only for an IPv6 address) and closes it again. Port 0 always can.
    /// Another process may still take the port before ``start()``, which then fails as usual;
    /// this check only spares the caller work (creating and migrating a database) that a busy
    /// port would make pointless.
    /// - Throws: ``HTTPServerError/cannotResolve(host:reason:)``, or
    ///   ``HTTPServerError/portUnavailable(host:port:reason:)`` with the failing call's error text.
    public static func checkAvailable(host: String, port: UInt16) throws(HTTPServerError) {
        guard port != 0 else { return }
        let address = try SocketAddress(host: host, port: port)
        guard let probe = ListeningSocket.open(address) else {
            let code = errno
            throw .portUnavailable(
                host: host, port: port,
                reason: code == EADDRINUSE ? PortHolders.inUseReason(port: port) : unavailableReason(code))
        }
        close(probe)
    }

    /// Why binding failed with `code`, and which option to change: the port when it is taken or
    /// privileged, the host when no interface of this machine has that address (`EADDRNOTAVAIL`).
    static func unavailableReason(_ code: Int32) -> String {
        switch code {
        case EADDRINUSE:
            return "the port is in use by another process (choose another --port)"
        case EADDRNOTAVAIL:
            return "\(String(cString: strerror(code))): no network interface of this machine has that address "
                + "(choose another --host: 127.0.0.1, 0.0.0.0 for every interface, or one of this machine's addresses)"
        case EACCES:
            return "\(String(cString: strerror(code))) (ports below 1024 need privileges: choose another --port)"
        default:
            return "\(String(cString: strerror(code))) (check --host and --port)"
        }
    }
}
