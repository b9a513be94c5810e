/// Why the HTTP server could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// The host name or address could not be resolved; `reason` is the resolver's message.
    case cannotResolve(host: String, reason: String)
    /// libmicrohttpd refused to start, usually because the port is taken or not permitted.
    case cannotListen(host: String, port: UInt16)

    public var description: String {
        switch self {
        case let .cannotResolve(host, reason):
            return "cannot resolve host '\(host)': \(reason)"
        case let .cannotListen(host, port):
            return "cannot listen on \(host):\(port) (address in use or not permitted?)"
        }
    }
}
