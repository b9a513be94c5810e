extension HTTPRequest {
    /// Whether `target` is in one of HTTP/1.1's request-target forms (RFC 9112 section 3.2) for
    /// a request with `method`: origin (`/…`), absolute (a scheme, `:`, then anything), asterisk
    /// (`*`), or, for `CONNECT`, authority (`host:port`). A request whose target is in none is
    /// refused with 400 before matching (docs/protocol.md#malformed-requests), so a mock's
    /// `equal` url in none can never match.
    public static func isInATargetForm(_ target: String, method: String) -> Bool {
        ServerCore.isInATargetForm(target, method: method)
    }

    /// Whether `target`, for a request with `method`, is an `http` or `https` URI that names no
    /// host (`http:///x`, `http://user@/x`, `http:/x`; ``ServerCore/isHTTPURIWithoutHost(_:)``):
    /// a request with such a target is refused with 400 before matching
    /// (docs/protocol.md#malformed-requests), so a mock's `equal` url of one can never match.
    public static func isHTTPURIWithoutHost(_ target: String, method: String) -> Bool {
        method != "CONNECT" && target.utf8.first != UInt8(ascii: "/") && ServerCore.isHTTPURIWithoutHost(target)
    }
}
