import CatbirdSupport

/// A request to send to an upstream server (redirect, proxy and record modes).
public struct OutboundRequest: Sendable {
    /// The method token as received, e.g. `GET`; sent unchanged.
    public var method: String
    /// The absolute `http://` or `https://` URL to send to.
    public var url: String
    /// Header fields to send, in order. `Host`, `Content-Length` and the hop-by-hop fields are
    /// libcurl's to write and are left out (see ``OutboundRequest/hopByHop``); a field with an
    /// empty value is sent empty.
    public var headers: [(name: String, value: String)]
    /// The whole request body (possibly empty); sent with a `Content-Length`.
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Fields that describe one connection rather than the message (RFC 9110 §7.6.1), plus the
    /// framing fields libcurl writes itself: never copied between the client's connection and
    /// the upstream's, in either direction. Lowercased.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
        "te", "trailer", "transfer-encoding", "upgrade", "content-length", "host",
    ]

    /// `fields` without the hop-by-hop ones: those in ``hopByHop`` and those a `Connection`
    /// field of the same message names as its connection options (`Connection: keep-alive,
    /// X-Hop` makes `X-Hop` hop-by-hop). RFC 9110 §7.6.1: an intermediary must remove them
    /// before forwarding (tester finding T13-F1). Names compare case-insensitively.
    public static func endToEnd(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var dropped = hopByHop
        for field in fields where field.name.lowercased() == "connection" {
            for option in field.value.split(separator: ",") {
                dropped.insert(option.trimmingOptionalWhitespace().lowercased())
            }
        }
        return fields.filter { !dropped.contains($0.name.lowercased()) }
    }
}
