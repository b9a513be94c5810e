/// Why the HTTP server could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// The host name or address could not be resolved; `reason` is the resolver's message.
    case cannotResolve(host: String, reason: String)
    /// The host resolves to an address no socket can listen on (``SocketAddress/unusableReason``).
    case unusableAddress(host: String, reason: String)
    /// libmicrohttpd refused to start, usually because the port is taken or not permitted.
    case cannotListen(host: String, port: UInt16)
    /// ``HTTPServer/checkAvailable(host:port:)`` could not bind the port (`reason`: why, and
    /// which option to change).
    case portUnavailable(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case let .cannotResolve(host, reason):
            return "cannot resolve host '\(host)': \(reason)"
        case let .unusableAddress(host, reason):
            return "cannot listen on '\(host)': it is \(reason)"
        case let .cannotListen(host, port):
            return "cannot listen on \(host):\(port) (the port in use or not permitted, or the host not an address of this machine?)"
        case let .portUnavailable(host, port, reason):
            return "cannot listen on \(host):\(port): \(reason); nothing was started"
        }
    }
}
