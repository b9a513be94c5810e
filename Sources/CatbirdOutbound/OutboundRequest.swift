import CatbirdSupport

/// A request to send to an upstream server (redirect, proxy and record modes).
public struct OutboundRequest: Sendable {
    /// The method token as received, e.g. `GET`; sent unchanged.
    public var method: String
    /// The absolute `http://` or `https://` URL to send to.
    public var url: String
    /// Header fields to send, in order, as given: without `Host`, `Content-Length` and the
    /// hop-by-hop fields, which are libcurl's to write (``endToEnd(_:replacing:)`` leaves them
    /// out); a field with an empty value is sent empty.
    public var headers: [(name: String, value: String)]
    /// The whole request body (possibly empty); sent with a `Content-Length`.
    public var body: [UInt8]
    /// Who holds the answer's bytes of the client's budget (``OutboundClient/budget``: the
    /// tenant the request came from), or nil (``CatbirdSupport/ByteBudget/take(_:leaving:by:)``).
    public var budgetHolder: ByteBudget.Holder?

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
    /// before forwarding (tester finding T13-F1). Nor those named in `replaced` (lowercased):
    /// fields the caller writes itself (a proxy's `Via`). Names compare ASCII case-insensitively.
    ///
    /// One pass over the fields, each name folded once (``Swift/String/asciiLowercased()``,
    /// which copies nothing when it is already lowercase). The `Connection` field may come after
    /// the fields it names, so only when it names one not left out already (`X-Hop`; also
    /// `close`, a connection option rather than a field) are the kept fields looked at again.
    public static func endToEnd(
        _ fields: [(name: String, value: String)], replacing replaced: Set<String> = []
    ) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = []
        kept.reserveCapacity(fields.count)
        var named: Set<String> = []
        for field in fields {
            let name = field.name.asciiLowercased()
            if name == "connection" {
                for member in field.value.split(separator: ",") {
                    let option = String(member.trimmingOptionalWhitespace()).asciiLowercased()
                    if !hopByHop.contains(option), !replaced.contains(option) { named.insert(option) }
                }
            }
            if !hopByHop.contains(name), !replaced.contains(name) { kept.append(field) }
        }
        guard !named.isEmpty else { return kept }
        return kept.filter { !named.contains($0.name.asciiLowercased()) }
    }
}
