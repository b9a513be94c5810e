import CCurl

extension OutboundClient {
    /// A new easy handle set up for `transfer`, which it retains (released in `finish`), or nil
    /// when libcurl cannot allocate one. Options: https://curl.se/libcurl/c/curl_easy_setopt.html
    func configure(_ transfer: OutboundTransfer) -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        let request = transfer.request
        let context = Unmanaged.passRetained(transfer).toOpaque()
        _ = catbird_curl_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        setString(easy, CURLOPT_URL, request.url)
        // The target as received, not as libcurl would rewrite its path (``OutboundRequest/requestTarget``).
        if let target = request.requestTarget {
            setString(easy, CURLOPT_REQUEST_TARGET, target.first == "?" ? "/" + target : String(target))
        }
        setString(easy, CURLOPT_CUSTOMREQUEST, request.method)
        // The target as received: no squashing of `/../` or `/./`.
        _ = catbird_curl_setopt_long(easy, CURLOPT_PATH_AS_IS, 1)
        // Straight to the upstream, whatever http_proxy and friends say in our environment.
        setString(easy, CURLOPT_PROXY, "")
        _ = catbird_curl_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        _ = catbird_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = catbird_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        // TLS: the URL's host is the SNI and the name checked in the certificate (libcurl's
        // defaults, CURLOPT_SSL_VERIFYPEER and _VERIFYHOST on); only the CA store may change.
        if let caFile { setString(easy, CURLOPT_CAINFO, caFile) }
        _ = catbird_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        _ = catbird_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout))
        // The answer's body as the upstream encoded it, and no Accept-Encoding but the client's
        // (CURLOPT_ACCEPT_ENCODING is never set): forwarding passes both through unchanged.
        _ = catbird_curl_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        // One connection per request, closed when its answer has been read, never kept for
        // another: on a reused HTTP/1.1 connection nothing tells one answer's bytes from the
        // next's, so bytes an upstream sends after a complete answer (a write after it, a
        // Content-Length that counts characters rather than bytes, a body after a HEAD's or a
        // 304's head) were read as the next forwarded request's answer, any tenant's, and
        // recorded as its fixture (tester findings tester20a-F4, tester23a-F1). libcurl 7.88
        // reuses a connection that holds unread bytes (8.0 refuses one, curl PR 10690), and no
        // check before reuse can see bytes that arrive after the next request went out. The
        // request says so (`Connection: close`, ``headerList(_:)``), as RFC 9112 section 9.6 asks of a
        // client that does not keep connections; the cost, measured: docs/files.md#redirect-and-proxy.
        _ = catbird_curl_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            _ = catbird_curl_setopt_long(easy, CURLOPT_UPLOAD, 1)
            _ = catbird_curl_setopt_offset(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body.count))
            _ = catbird_curl_setopt_callback(easy, CURLOPT_READFUNCTION, OutboundTransfer.sendBody)
            _ = catbird_curl_setopt_pointer(easy, CURLOPT_READDATA, context)
        }
        // After CURLOPT_UPLOAD, which clears it: a HEAD with a body (tester finding tester46c-F1)
        // was read as if a body followed its answer's head, and a correct upstream's answer was
        // a 502 "cut short".
        if request.method == "HEAD" { _ = catbird_curl_setopt_long(easy, CURLOPT_NOBODY, 1) }
        _ = catbird_curl_setopt_callback(easy, CURLOPT_WRITEFUNCTION, OutboundTransfer.receiveBody)
        _ = catbird_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = catbird_curl_setopt_callback(easy, CURLOPT_HEADERFUNCTION, OutboundTransfer.receiveHeader)
        _ = catbird_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        transfer.headerList = Self.headerList(request.headers)
        _ = catbird_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, transfer.headerList)
        _ = catbird_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        return easy
    }

    /// The fields as libcurl's list, and `Connection: close` (the connection is not kept for
    /// another request, ``configure(_:)``). libcurl adds `Accept: */*` and, for large uploads,
    /// `Expect: 100-continue` on its own: an empty `Name:` entry suppresses each one the client did
    /// not send, so the upstream sees what the client sent. An empty value is written `Name;`,
    /// libcurl's spelling for a field sent empty.
    /// The fields are taken as given: the hop-by-hop ones were left out where the request was
    /// made (``OutboundRequest/headers``).
    static func headerList(_ fields: [(name: String, value: String)]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        var sendsAccept = false
        var sendsExpect = false
        for field in fields {
            if field.name.equalsIgnoringASCIICase("Accept") { sendsAccept = true }
            if field.name.equalsIgnoringASCIICase("Expect") { sendsExpect = true }
            list = curl_slist_append(list, field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if !sendsAccept { list = curl_slist_append(list, "Accept:") }
        if !sendsExpect { list = curl_slist_append(list, "Expect:") }
        return curl_slist_append(list, "Connection: close")
    }

    private func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
        _ = value.withCString { catbird_curl_setopt_pointer(easy, option, $0) }  // libcurl copies strings
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        // Rounded up, and at least 1 for a positive duration: libcurl reads 0 as "no timeout"
        // (tester finding tester42b-F1: --upstream-timeout 0.0004 truncated to 0 ms, and a
        // request to a hung upstream was never answered).
        let whole = Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return duration > .zero ? max(1, whole) : whole
    }
}
