import CatbirdSupport

/// The authority of a URI, `[ userinfo "@" ] host [ ":" port ]` (RFC 3986 section 3.2): what
/// follows `http://` in an absolute-form request-target, and what a `Host` field holds (without
/// user information, RFC 9110 section 7.2). One check for both: a request whose `http` target has
/// an invalid one is refused with 400 before matching (docs/protocol.md#malformed-requests), and a
/// HAR url is made only from valid ones (docs/protocol.md#har-export).
public enum URIAuthority {
    /// What makes an authority invalid.
    public enum Problem: Sendable, Equatable {
        /// No host: nothing, or only user information or a port (`http:///x`, `http://user@/x`,
        /// `http://:80/x`, `http://[]/x`), or an `http:` URI without `//` (RFC 9110 section 4.2.1).
        case noHost
        /// A `[` not closed by `]` (`http://[::1/x`), anything but an IPv6 address (hex digits,
        /// `:`, `.`) between them, or anything but a port after the `]` (RFC 3986 section 3.2.2).
        case invalidIPLiteral
        /// A port that is not a decimal number from 0 to 65535 (`h:-1`, `h:99999`, RFC 3986
        /// section 3.2.3 and RFC 9110 section 4.2.1's TCP port); `port`: as given, after the `:`.
        case invalidPort(String)
        /// A character outside the authority's grammar: a `\`, a space, `%` not followed by two
        /// hex digits, non-ASCII (a name is sent in its ASCII form), a second `@` or user
        /// information where none is allowed. `character`: the first such, as text.
        case invalidCharacter(String)

        /// The rule broken: RFC 9110 section 4.2.1 for no host, else RFC 3986 section 3.2.
        public var rule: String {
            self == .noHost ? "RFC 9110 section 4.2.1" : "RFC 3986 section 3.2"
        }

        /// What is wrong, as a clause after "the authority" (`has no host`, `has the port "-1"…`).
        public var description: String {
            switch self {
            case .noHost:
                "has no host (nothing, or only user information or a port, between '//' and the path)"
            case .invalidIPLiteral:
                "has an IP literal that is not an IPv6 address closed by ']' (as in http://[::1]:8080/path)"
            case let .invalidPort(port):
                "has the port \(JSONText.shortString(port)), which is not a number from 0 to 65535"
            case let .invalidCharacter(character):
                "holds \(JSONText.shortString(character)), which an authority may not (RFC 3986 section 3.2: letters, digits, "
                    + "-._~!$&'()*+,;= and %XX, an IPv6 literal in brackets, ':' before the port, one '@' after user information)"
            }
        }
    }

    /// What makes `authority` invalid, or nil when it is valid.
    /// - Parameters:
    ///   - authority: the authority's bytes (for a URI: between `//` and the next `/`, `?` or `#`).
    ///   - allowsUserInfo: whether `userinfo@` may come first (a URI's may, a `Host` field's not).
    /// An empty port (`host:`) is valid, as RFC 3986 has it (the scheme's default).
    public static func problem(_ authority: Substring.UTF8View, allowsUserInfo: Bool) -> Problem? {
        var host = authority
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            guard allowsUserInfo else { return .invalidCharacter("@") }
            // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ); an '@' of its own is a second '@'.
            if let bad = firstInvalid(authority[..<at], alsoAllowing: UInt8(ascii: ":")) { return bad }
            host = authority[authority.index(after: at)...]
        }
        let port: Substring.UTF8View
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return .invalidIPLiteral }
            let literal = host[host.index(after: host.startIndex)..<close]
            if literal.isEmpty { return .noHost }
            guard literal.allSatisfy({ $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || ASCIIByte.isHexDigit($0) }) else {
                return .invalidIPLiteral
            }
            port = host[host.index(after: close)...]
            guard port.isEmpty || port.first == UInt8(ascii: ":") else { return .invalidIPLiteral }
        } else {
            let colon = host.firstIndex(of: UInt8(ascii: ":")) ?? host.endIndex
            if let bad = firstInvalid(host[..<colon], alsoAllowing: nil) { return bad }
            if colon == host.startIndex { return .noHost }
            port = host[colon...]
        }
        let digits = port.dropFirst()
        var value = 0
        for byte in digits {
            guard ASCIIByte.isDigit(byte) else { return .invalidPort(String(decoding: digits, as: UTF8.self)) }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), 65_536)
        }
        return value > 65_535 ? .invalidPort(String(Substring(digits))) : nil
    }

    /// The first character of `part` that is not unreserved, a sub-delim, `extra` or a `%`
    /// followed by two hex digits (RFC 3986 sections 2.1 to 2.3), as a problem; nil when none.
    private static func firstInvalid(_ part: Substring.UTF8View, alsoAllowing extra: UInt8?) -> Problem? {
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                let digits = part[part.index(after: index)...].prefix(2)
                guard digits.count == 2, digits.allSatisfy(ASCIIByte.isHexDigit) else { return .invalidCharacter("%") }
                index = digits.endIndex
                continue
            }
            guard ASCIIByte.isLetter(byte) || ASCIIByte.isDigit(byte) || byte == extra || "-._~!$&'()*+,;=".utf8.contains(byte) else {
                let scalar = String(decoding: part[index...], as: UTF8.self).unicodeScalars.first.map { String($0) } ?? "?"
                return .invalidCharacter(scalar)
            }
            index = part.index(after: index)
        }
        return nil
    }
}
