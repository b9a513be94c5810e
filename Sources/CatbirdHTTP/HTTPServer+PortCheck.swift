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
            let reason = code == EADDRINUSE ? "the port is in use by another process" : String(cString: strerror(code))
            throw .portUnavailable(host: host, port: port, reason: reason)
        }
        close(probe)
    }
}
