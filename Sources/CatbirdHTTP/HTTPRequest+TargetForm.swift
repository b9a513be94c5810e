extension HTTPRequest {
    /// Whether `target` is in one of HTTP/1.1's request-target forms (RFC 9112 section 3.2) for
    /// a request with `method`: origin (`/…`), absolute (a scheme, `:`, then anything), asterisk
    /// (`*`), or, for `CONNECT`, authority (`host:port`). A request whose target is in none is
    /// refused with 400 before matching (docs/protocol.md#malformed-requests), so a mock's
    /// `equal` url in none can never match.
    public static func isInATargetForm(_ target: String, method: String) -> Bool {
        ServerCore.isInATargetForm(target, method: method)
    }
}
