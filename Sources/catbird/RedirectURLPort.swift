/// The port a redirect URL (`--redirect-url`) writes, read from its text, for the start-up
/// check that it is a TCP port (1 to 65535; docs/files.md#redirect-and-proxy).
///
/// Read from the text, not from `URLComponents.port`: a port past `Int.max`
/// (`http://127.0.0.1:9223372036854775808`) has no `port` there, so the check let it through
/// and every forwarded request was a 502 "URL using bad/illegal format" (tester finding
/// tester24a-F4).
enum RedirectURLPort {
    /// The characters after the host's `:` in `url`'s authority (`http://u@[::1]:8080/x` →
    /// `8080`); nil when the authority writes no `:` after its host. May be empty
    /// (`http://host:/`, the scheme's default port) or not digits.
    static func written(in url: String) -> Substring? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        var afterHost = hostAndPort
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { return nil }
            afterHost = hostAndPort[hostAndPort.index(after: close)...]
        } else if let colon = hostAndPort.firstIndex(of: ":") {
            afterHost = hostAndPort[colon...]
        } else {
            return nil
        }
        guard afterHost.first == ":" else { return nil }
        return afterHost.dropFirst()
    }

    /// Whether `written` (``written(in:)``) names a port a connection can be made to: empty
    /// (the default port), or digits whose value is 1 to 65535.
    static func isConnectable(_ written: Substring) -> Bool {
        written.isEmpty || (written.allSatisfy { $0.isASCII && $0.isNumber } && Int(written).map { (1...65_535).contains($0) } == true)
    }
}
