extension OutboundRequest {
    /// The request-target of ``url`` as written there, for the request line: what follows the
    /// authority (`http://up/v2/ü?q=日` → `/v2/ü?q=日`, `http://up?q` → `/?q`); nil when the URL
    /// has no path or query (libcurl then sends `/`).
    ///
    /// libcurl rewrites a URL's path before sending it: a byte over 0x7F becomes `%xx` in
    /// lowercase, while the query is sent as given, so a redirected or proxied `/ü?q=ü` reached
    /// the upstream as `/%c3%bc?q=ü` and the journal, which shows the target as received, did not
    /// say what was sent (tester finding T18A-F1). Sent as `CURLOPT_REQUEST_TARGET`, the target
    /// goes as received (docs/files.md#redirect-and-proxy).
    var requestTarget: Substring? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return nil }
        return rest[start...]
    }
}
