import CatbirdHTTP

/// Which `Host` values the control routes (`/catbird`, the web page included) answer: a
/// defence against DNS rebinding (docs/files.md#host-names; tester finding try8b F7).
///
/// A page of any site the developer's browser opens can point its own DNS name at `127.0.0.1`
/// (a rebinding, TTL 0); its requests then reach a Catbird on this machine as the page's own
/// origin, so the browser lets the page read the answers (every journal: the app's tokens and
/// bodies) and the CORS check (``CORS``) sees a same-origin request. Such a request carries the
/// attacker's name in `Host`. While the server listens on a loopback address only
/// (``CatbirdServer/Settings/listensOnLoopbackOnly``, the default `127.0.0.1`), the control
/// routes therefore answer only:
/// - a request without `Host` (HTTP/1.0; a browser always sends one);
/// - an IP address literal (`127.0.0.1:8080`, `[::1]:8080`, an emulator's `10.0.2.2:8080`): a
///   rebinding needs a name (in absolute form only this machine's, ``isOwnAddress(_:)``);
/// - `localhost` and names under `.localhost` (RFC 6761: always loopback, browsers never ask
///   DNS for them);
/// - the names of `--allowed-host` (any case, a trailing dot ignored; `*`: any name).
///
/// Listening on another address (a fleet's shared host, reached under its DNS name) the names
/// are not checked unless `--allowed-host` lists some. Mocks, files and forwarding answer any
/// `Host` (an app under test, a proxy client).
///
/// An absolute-form request (`GET http://evil.test/catbird/api/tenants`, what a client using
/// Catbird as its HTTP proxy sends) is checked by the target's host, which RFC 9112 section
/// 3.2.2 says stands for `Host`: a browser proxied through a `--proxy` server sends a page's
/// own calls to `/catbird/…` in that form under the page's name, so exempting it let any
/// page the proxied browser loaded read every journal (tester finding try9b F1).
struct ControlHosts: Sendable {
    /// The names of `--allowed-host`, lowercased, without a trailing dot.
    private let listed: Set<String>
    /// Whether any name is answered: `--allowed-host '*'`, or a server listening beyond
    /// loopback with no names listed.
    private let anyName: Bool

    /// The policy for a server listening on `host` (`--host`) with `allowed` (`--allowed-host`).
    init(listening loopbackOnly: Bool, allowed: [String]) {
        listed = Set(allowed.map(Self.normalized))
        anyName = listed.contains("*") || (!loopbackOnly && allowed.isEmpty)
    }

    /// The 403 for a control request whose `Host` names a host this policy does not answer;
    /// nil when it is answered.
    func refusal(_ request: HTTPRequest) -> APIError? {
        guard !anyName else { return nil }
        let absolute = Self.authority(ofAbsolute: request.target)
        guard let field = absolute ?? request.headers.first("Host") else { return nil }
        guard let name = Self.name(inHost: field) else {
            // An IP address literal: in `Host` only this machine's (a browser sent the request to
            // it); in absolute form any, so only this machine's are answered (tester finding
            // tester46c-F4, ``isOwnAddress(_:)``).
            guard let absolute, !Self.isOwnAddress(absolute), !listed.contains(Self.hostPart(of: absolute)) else { return nil }
            return .forbidden(
                "the address \(absolute) of a proxy-form target is not one of this machine's: listening on a loopback address, "
                    + "the server answers its control routes in proxy form for loopback addresses, localhost and --allowed-host "
                    + "names only, so that a page a proxied browser loaded from any address cannot reach them as its own origin; "
                    + "give --allowed-host \(Self.hostPart(of: absolute)) if that address is this machine's (docs/files.md#host-names)")
        }
        if name == "localhost" || name.hasSuffix(".localhost") || listed.contains(name) { return nil }
        // The option is suggested only with a value it accepts (T11-F8: an empty Host was told to
        // give `--allowed-host ` with no name).
        let hint = CatbirdServer.Settings.isListableHost(name)
            ? "give --allowed-host \(name) if that name is this machine's" : "it is not a name --allowed-host can list"
        return .forbidden(
            "the Host \(field.isEmpty ? "\"\"" : field) is not a name this server answers its control routes under: listening on a loopback address, it "
                + "answers them for IP addresses, localhost and --allowed-host names only, so that a web page cannot reach them "
                + "through a rebound DNS name; \(hint) (docs/files.md#host-names)")
    }

    /// The authority (`host[:port]`, without `user@`) of an absolute-form `target`
    /// (`http://api.test:81/catbird/api/mocks` → `api.test:81`), which RFC 9112 section 3.2.2
    /// makes the request's host in place of `Host`; nil for any other form.
    private static func authority(ofAbsolute target: String) -> String? {
        URIAuthority.Span(ofHTTP: target[...]).map { String(target[$0.host]) }
    }

    /// The lowercased host name of a `Host` field (port and trailing dot removed); nil for an IP
    /// address literal (`[…]` or four decimal numbers).
    static func name(inHost field: String) -> String? {
        if field.hasPrefix("[") { return nil }
        var host = Substring(field)
        if let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) {
            host = host[..<colon]
        }
        if host.count > 1, host.hasSuffix(".") { host = host.dropLast() }  // `127.0.0.1.` is the address
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }) { return nil }
        return normalized(String(host))
    }

    /// `name` lowercased, without a trailing dot (`Localhost.` is `localhost`).
    private static func normalized(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") && lowered.count > 1 ? String(lowered.dropLast()) : lowered
    }
}

extension Character {
    /// `0`–`9` only (not other scripts' digits, which `isNumber` admits).
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

extension CatbirdServer.Settings {
    /// The `Host` policy of the control routes for ``host`` and ``allowedHosts``.
    var controlHosts: ControlHosts { ControlHosts(listening: listensOnLoopbackOnly, allowed: allowedHosts) }
}
