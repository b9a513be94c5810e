import Foundation

/// The values `--cors-origin` and `--allowed-host` accept, in one place: the command line
/// refuses any other, and a 403 suggests the option only with a value it would accept (tester
/// finding T11-F8: `Origin: null` was told to give `--cors-origin null`, an empty `Host` to
/// give `--allowed-host ` with no name, and both values exit 2).
extension CatbirdServer.Settings {
    /// Whether `origin` may be listed by `--cors-origin`: an origin as a browser sends it in
    /// `Origin`, `http://` or `https://`, a host and an optional port, no path, query, fragment
    /// or user (docs/files.md#cors). `*` is listable too but is no origin: not accepted here.
    public static func isListableOrigin(_ origin: String) -> Bool {
        guard let components = URLComponents(string: origin) else { return false }
        return ["http", "https"].contains(components.scheme?.lowercased() ?? "") && components.host?.isEmpty == false
            && components.path.isEmpty && components.query == nil && components.fragment == nil && components.user == nil
    }

    /// A listable `origin` as a browser serializes it in `Origin`: lowercased, and without its
    /// scheme's default port (`:80` for http, `:443` for https) or an empty one, which browsers
    /// leave out; a port written with leading zeros as its number. Tester finding T14B-F5:
    /// `--cors-origin http://a.com:80` was kept as given, and the `Origin: http://a.com` of a
    /// page there never matched it (403 on the control routes).
    public static func normalizedOrigin(_ origin: String) -> String {
        let lowered = origin.lowercased()
        guard let schemeEnd = lowered.range(of: "://") else { return lowered }
        let scheme = lowered[..<schemeEnd.lowerBound]
        let authority = lowered[schemeEnd.upperBound...]
        // The port follows the last ':' after the host (after the ']' of an IPv6 address).
        let hostEnd = authority.lastIndex(of: "]") ?? authority.startIndex
        guard let colon = authority[hostEnd...].lastIndex(of: ":") else { return lowered }
        let digits = authority[authority.index(after: colon)...]
        guard digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) else { return lowered }
        let port = Int(digits)
        let defaultPort = scheme == "https" ? 443 : 80
        let host = "\(scheme)://\(authority[..<colon])"
        guard let port, port != defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// Whether `name` may be listed by `--allowed-host`: a host name as it appears in `Host`,
    /// printable ASCII without space, scheme, port or path (no `/:@[]*,`), not empty
    /// (docs/files.md#host-names). `*` is listable too but is no name: not accepted here.
    public static func isListableHost(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"/:@[]*,".utf8.contains($0) }
    }
}
