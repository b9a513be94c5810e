extension HTTPRequest {
    /// Whether `target` is in one of HTTP/1.1's request-target forms (RFC 9112 section 3.2) for
    /// a request with `method`: origin (`/…`), absolute (a scheme, `:`, then anything), asterisk
    /// (`*`), or, for `CONNECT`, authority (`host:port`). A request whose target is in none is
    /// refused with 400 before matching (docs/protocol.md#malformed-requests), so a mock's
    /// `equal` url in none can never match.
    public static func isInATargetForm(_ target: String, method: String) -> Bool {
        ServerCore.isInATargetForm(target, method: method)
    }

    /// What makes `target`, for a request with `method`, an `http` or `https` URI with no host
    /// (`http:///x`, `http://user@/x`, `http:/x`) or an invalid authority (`http://[::1/x`,
    /// `http://h:99999/x`, a `\` in it; ``ServerCore/httpURIAuthorityProblem(_:)``), or nil: a
    /// request with such a target is refused with 400 before matching
    /// (docs/protocol.md#malformed-requests), so a mock's `equal` url of one can never match, and
    /// a HAR url is not made of one.
    public static func httpURIAuthorityProblem(_ target: String, method: String) -> URIAuthority.Problem? {
        guard method != "CONNECT", target.utf8.first != UInt8(ascii: "/") else { return nil }
        return ServerCore.httpURIAuthorityProblem(target)
    }
}
