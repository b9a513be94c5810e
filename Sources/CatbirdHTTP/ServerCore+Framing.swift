import CatbirdSupport

extension ServerCore {
    /// What makes the request's framing or target ambiguous, which libmicrohttpd 0.9.75 lets
    /// through (docs/protocol.md#malformed-requests): `Content-Length` values that differ
    /// (RFC 9112 section 6.3: 400, and the connection closed, which the malformed-request answer
    /// does), an HTTP/1.1 request without exactly one `Host` field, and a request-target in none
    /// of HTTP/1.1's forms (both RFC 9112 section 3.2).
    /// One pass over the fields, comparing names only when their length matches.
    static func framingProblem(_ context: RequestContext) -> HTTPRequestProblem? {
        if !isInATargetForm(context.target, method: context.method) { return .targetForm }
        var hosts = 0
        var length: Substring?
        var conflicting = false
        for field in context.headers.fields {
            switch field.name.utf8.count {
            case 4 where field.name.equalsIgnoringASCIICase("Host"):
                hosts += 1
            case 14 where field.name.equalsIgnoringASCIICase("Content-Length"):
                // A list (`5, 5`) counts as its members (RFC 9112 section 6.3 lets equal ones be one).
                for member in field.value.split(separator: ",") {
                    let value = member.trimmingOptionalWhitespace()
                    if let length, length != value { conflicting = true }
                    length = value
                }
            default:
                break
            }
        }
        if conflicting {
            return .conflictingContentLength(values: context.headers.fields.filter {
                $0.name.equalsIgnoringASCIICase("Content-Length")
            }.map(\.value))
        }
        if context.version == "HTTP/1.1", hosts != 1 { return .hostFieldCount(hosts) }
        return nil
    }
}

extension ServerCore {
    /// Whether `target` is in one of HTTP/1.1's request-target forms (RFC 9112 section 3.2):
    /// origin (`/…`), absolute (a scheme, `:`, then anything), asterisk (`*`), or, for
    /// `CONNECT`, authority.
    static func isInATargetForm(_ target: String, method: String) -> Bool {
        let bytes = target.utf8
        guard let first = bytes.first, first != UInt8(ascii: "/") else { return true }
        if method == "CONNECT" || target == "*" { return true }
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 section 3.1), then ":".
        guard ASCIIByte.isLetter(first), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return bytes[..<colon].allSatisfy { ASCIIByte.isLetter($0) || ASCIIByte.isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }
}
