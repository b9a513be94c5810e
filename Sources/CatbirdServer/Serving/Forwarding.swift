import CatbirdDomain
import CatbirdHTTP
import CatbirdOutbound
import CatbirdSupport
import CatbirdWire
import Foundation

/// Where a request no mock or file answers is sent (`docs/files.md#redirect-and-proxy`), and
/// how the request and the upstream's answer are translated.
struct Forwarding: Sendable {
    /// The redirect base URL without a trailing `/`, e.g. `http://api.example.com/v2`.
    let redirectBase: String?
    let proxyEnabled: Bool
    /// This server's name in the `Via` field of what it forwards (`catbird-` and 8 random hex
    /// digits, new at each start): a request that arrives already carrying it has come round
    /// a loop (``isLoop(_:)``). Distinct per process, so one Catbird may forward to another.
    let hopName: String
    /// Whether record mode is on (`--record`), which serves no file mocks: said in the 404 of a
    /// request that is never forwarded (``missHint(for:)``).
    var recording = false

    /// Where a request goes and how the journal names it.
    struct Destination: Equatable {
        /// The URL requested, user information included (a redirect URL's, given on the
        /// command line, is sent).
        var url: String
        var answeredBy: CatbirdRequest.AnsweredBy

        /// ``url`` as every log line, reason and journal `problem` shows it: its password
        /// hidden (``URLPassword/hidden(in:)``; tester finding tester20a-F10: a 499 entry's
        /// `problem` showed it to the tenant whose app hung up, through the journal, HAR and page).
        var shown: String { URLPassword.hidden(in: url) }
    }

    init(redirectURL: String?, proxyEnabled: Bool, hopName: String = Forwarding.newHopName()) {
        self.hopName = hopName
        var base = redirectURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        redirectBase = base
        self.proxyEnabled = proxyEnabled
    }

    /// The upstream URL for `target`: an absolute-form target (`http://host/…`) in proxy mode
    /// goes to itself without its user information (``withoutUserInformation(_:authority:)``); an
    /// origin-form one (`/…`) in redirect mode goes to the base URL with the target appended
    /// (`http://up/v2` + `/a?q` → `http://up/v2/a?q`). A fragment (`#frag`, which libcurl
    /// would drop) is left out of either, as it is of the recorded file's name
    /// (``CatbirdDomain/FileMockName``). Nil: not forwarded.
    /// The redirect URL's path, percent-encoded, without a trailing `/` (`/v1` of
    /// `http://up/v1/`); "" for none, or without a redirect URL.
    var redirectBasePath: String {
        redirectBase.flatMap { URLComponents(string: $0)?.percentEncodedPath } ?? ""
    }

    func destination(of target: String) -> Destination? {
        let sent = target.firstIndex(of: "#").map { target[..<$0] } ?? Substring(target)
        if sent.hasPrefix("/") {
            guard let redirectBase else { return nil }
            return Destination(url: redirectBase + sent, answeredBy: .redirect)
        }
        guard proxyEnabled, let authority = URIAuthority.Span(ofHTTP: sent) else { return nil }
        return Destination(url: Self.withoutUserInformation(sent, authority: authority), answeredBy: .proxy)
    }

    /// An absolute URL without the user information of its authority: `http://user:pw@host/ui`
    /// → `http://host/ui`. libcurl turns user information into an `Authorization: Basic` field,
    /// which the client never sent (tester finding T12-F8); a client's own `Authorization` is
    /// forwarded as sent. (A redirect URL's user information, given by whoever starts Catbird,
    /// is kept: that is a credential meant for the upstream.)
    /// `authority`: where `url`'s lies.
    static func withoutUserInformation(_ url: Substring, authority: URIAuthority.Span) -> String {
        guard authority.hasUserInformation else { return String(url) }
        return String(url[..<authority.whole.lowerBound] + url[authority.host.lowerBound...])
    }

    /// A fresh ``hopName``.
    static func newHopName() -> String {
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "catbird-" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Whether `request` has already been forwarded by this server: one of its `Via` entries
    /// names ``hopName`` (RFC 9110 §7.6.3: `Via: 1.1 a, 1.1 b`, the received-by name second).
    func isLoop(_ request: HTTPRequest) -> Bool {
        request.headers.fields.contains { field in
            field.name.lowercased() == "via"
                && field.value.split(separator: ",").contains { $0.split(separator: " ").dropFirst().first == Substring(hopName) }
        }
    }

    /// The answer to a request that came round a loop: 508 with the JSON error, marked as made
    /// by Catbird (``generated(_:)``).
    var loopDetected: HTTPResponse {
        generated(APIError(
            status: 508,
            reason: "forwarding loop: this request was already forwarded by this Catbird (Via: 1.1 \(hopName)); "
                + "the redirect URL or the proxied host leads back to Catbird itself"))
    }

    /// The header field that marks an answer Catbird made itself in place of an upstream's, with
    /// the ``hopName`` of the Catbird that made it: every such answer is made by ``generated(_:)-(HTTPResponse)``
    /// (the forwarding errors, a loop's 508, the 502 in place of an answer that cannot be
    /// passed on or whose head does not fit, the 503 of a stopping server, the proxy's 501 to
    /// `CONNECT` (``connectNotSupported``), and the refusals of
    /// a request that would have been forwarded, ``refusal(_:of:)``). When such an
    /// answer comes back as an upstream's (a loop back to itself, or one Catbird forwarding to
    /// another), record mode does not write it as a file mock: it is not the backend's answer
    /// (docs/files.md#recording).
    static let generatedByHeader = "X-Catbird-Generated-By"

    /// `response`, made by Catbird in place of an upstream's answer, marked with
    /// ``generatedByHeader``: the one place such an answer is marked.
    func generated(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add(name: Self.generatedByHeader, value: hopName)
        return response
    }

    /// `error`'s JSON answer, marked (``generated(_:)-(HTTPResponse)``).
    func generated(_ error: APIError) -> HTTPResponse {
        generated(error.response)
    }

    /// Whether a request for `target` is of a form this Catbird forwards when no mock or file
    /// answers it: origin-form (`/…`) with a redirect URL; any other form with `--proxy` (the
    /// absolute form, also one refused as malformed, `http:///x`). `/catbird` targets are never
    /// forwarded: ``refusal(_:of:)`` leaves them out.
    func forwardsForm(of target: String) -> Bool {
        target.utf8.first == UInt8(ascii: "/") ? redirectBase != nil : proxyEnabled
    }

    /// What a 404's reason says when `target` is of the form this Catbird does not forward
    /// (``forwardsForm(of:)``), or nil: the other mode forwards it (tester finding
    /// tester20a-F11.1: a proxy's absolute-form request to a `--redirect-url` server got a bare
    /// 404, as a WireMock or MockServer user meets first). Nil for `/catbird` targets.
    func missHint(for target: String) -> String? {
        guard !forwardsForm(of: target), !CatbirdHandler.isControlTarget(target) else { return nil }
        if target.utf8.first == UInt8(ascii: "/") {
            // Tester finding tester36a-F4: with --record --proxy, a path's file in the mocks
            // directory was neither served nor named.
            let files = recording ? "; nor is a file of the mocks directory served while recording (--record; docs/files.md#recording)" : ""
            return "not forwarded: this server forwards only absolute-form requests (an HTTP proxy's, --proxy); "
                + "a request for a path is forwarded with --redirect-url (docs/files.md#redirect-and-proxy)" + files
        }
        guard let redirectBase else { return nil }
        // Neither form goes anywhere with --proxy either (tester finding tester52a-F1: the hint
        // said it would): `OPTIONS *` is the server's own, and a tunnel is not supported.
        if target == "*" {
            return "not forwarded: a request for * (asterisk-form, OPTIONS *) asks this server itself and is never forwarded "
                + "(docs/files.md#redirect-and-proxy)"
        }
        if !target.contains("://") {
            return "not forwarded: an authority-form request (CONNECT host:port, a tunnel for HTTPS through a proxy) is never "
                + "forwarded; with --proxy it is answered 501 (docs/files.md#redirect-and-proxy)"
        }
        return "not forwarded: this server forwards only requests for a path, to \(URLPassword.hidden(in: redirectBase)); "
            + "an absolute-form request (an HTTP proxy's) is forwarded with --proxy (docs/files.md#redirect-and-proxy)"
    }

    /// `response`, Catbird's refusal of a request for `target` before it was matched or
    /// forwarded (a 413 over `--max-body-size`, the body budget's 503, a 400, 414 or 431 for a
    /// malformed request, a lane's 429): marked (``generated(_:)-(HTTPResponse)``) when the
    /// request is of a form that is forwarded here (``forwardsForm(of:)``) and not a control
    /// request, since it then goes out in place of the upstream's answer, and a recording
    /// Catbird in front must not write it as the backend's (docs/files.md#redirect-and-proxy).
    /// Unchanged otherwise.
    func refusal(_ response: HTTPResponse, of target: String) -> HTTPResponse {
        guard forwardsForm(of: target), !CatbirdHandler.isControlTarget(target) else { return response }
        return generated(response)
    }

    /// Whether `response` (an upstream's) is an answer some Catbird made itself (``generatedByHeader``).
    static func isGenerated(_ response: HTTPResponse) -> Bool {
        response.headers.first(generatedByHeader) != nil
    }

    /// The request to send: method, headers (hop-by-hop ones, those the client's `Connection`
    /// names included, left out, libcurl writing its own, in one pass with the received fields
    /// written here, ``forwardingFields``: ``OutboundRequest/endToEnd(_:replacing:)``;
    /// `Authorization` and cookies unchanged) with `X-Forwarded-For` (the client's address appended to any
    /// received), `X-Forwarded-Host` (the Host received), `X-Forwarded-Proto: http` and
    /// `Via: 1.1 <hopName>` (appended to any received), and the whole body. `Accept-Encoding`
    /// is the client's, or none: nothing is added.
    func outboundRequest(_ request: HTTPRequest, to destination: Destination) -> OutboundRequest {
        var headers = OutboundRequest.endToEnd(request.headers.fields, replacing: Self.forwardingFields)
        let via = request.headers.values("Via") + ["1.1 \(hopName)"]
        headers.append((name: "Via", value: via.joined(separator: ", ")))
        let forwardedFor = request.headers.first("X-Forwarded-For").map { "\($0), \(request.clientAddress)" }
        headers.append((name: "X-Forwarded-For", value: forwardedFor ?? request.clientAddress))
        if let host = request.headers.first("Host") { headers.append((name: "X-Forwarded-Host", value: host)) }
        headers.append((name: "X-Forwarded-Proto", value: "http"))
        if request.method == "HEAD" {
            // A HEAD goes without its body (libcurl sends none, ``CatbirdOutbound/OutboundClient``),
            // so without the fields that describe one: RFC 9110 section 10.1.1, no `100-continue`
            // without content (tester finding tester47a-F9: `Expect` and `Content-Encoding` went
            // out on a bodiless HEAD).
            headers.removeAll { Self.contentFields.contains($0.name.lowercased()) }
        } else if request.body.isEmpty || request.version == "HTTP/1.0" {
            // No content to send, or a request from an HTTP/1.0 client, whose `Expect` a
            // server must ignore: no `100-continue` expectation goes out (RFC 9110 section
            // 10.1.1; tester finding tester49a-F3: a GET, a `Content-Length: 0` POST and an
            // HTTP/1.0 request forwarded it).
            headers.removeAll { $0.name.lowercased() == "expect" }
        }
        var outbound = OutboundRequest(method: request.method, url: destination.url, headers: headers, body: request.body)
        outbound.budgetHolder = ByteBudget.Holder(request.headers.first(TenantID.headerName) ?? "")
        return outbound
    }

    /// The fields that describe a request's content, lowercased: left out of a forwarded
    /// `HEAD`, which goes without its body.
    static let contentFields: Set<String> = ["expect", "content-encoding", "content-type", "content-length", "transfer-encoding", "content-md5"]

    /// The fields ``outboundRequest(_:to:)`` writes itself, lowercased: those received are
    /// left out in the same pass as the hop-by-hop ones (``OutboundRequest/endToEnd(_:replacing:)``).
    static let forwardingFields: Set<String> = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "via"]

    /// The upstream's answer as ours: status and body unchanged (still encoded as its
    /// `Content-Encoding` says), header fields in order without the hop-by-hop and framing ones
    /// (those the upstream's `Connection` names included, ``OutboundRequest/endToEnd(_:replacing:)``)
    /// (the server frames the body itself). The answer to a `HEAD` has no body but
    /// announces the upstream's `Content-Length` (RFC 9110 §9.3.2: the size a `GET` would get).
    ///
    /// A field libmicrohttpd cannot send (``CatbirdHTTP/HTTPResponse/isSendable(_:)``: a CR in an
    /// upstream's value, `X-A: 1\rX-B: 2`) is left out, and its name returned in `leftOut`, so
    /// that the journal holds what went out and says what did not (tester finding T14-F1).
    func response(from upstream: OutboundResponse, method: String) -> (response: HTTPResponse, leftOut: [String]) {
        var fields = OutboundRequest.endToEnd(upstream.headers)
        var leftOut: [String] = []
        if !fields.allSatisfy(HTTPResponse.isSendable) {
            leftOut = fields.filter { !HTTPResponse.isSendable($0) }.map(\.name)
            fields = fields.filter(HTTPResponse.isSendable)
        }
        if method == "HEAD" {
            // A stream of the upstream's length that is never read: libmicrohttpd sends no body
            // to a HEAD. With none (a chunked or close-delimited GET), unframed, so that no
            // `Content-Length: 0` claims an empty representation (tester finding T15B-F8); so
            // with a value that is no valid length (`+5`, which a HEAD's answer may carry
            // unchecked). A list of equal lengths (`5, 5`) announces that length
            // (``CatbirdOutbound/OutboundResponse/AnnouncedLength``; values that differ were
            // refused before, ``UpstreamServing/unsendable(_:)``). A 204 or 304 has no
            // body to frame whatever the method (``CatbirdOutbound/OutboundResponse/hasBody(status:method:)``):
            // sent as before, the connection kept (review: unframed, each such answer closed its connection).
            let content: HTTPResponse.Body =
                if let length = upstream.announcedLength.length {
                    .stream(length: length, Self.noBody)
                } else if !OutboundResponse.hasBody(status: upstream.status) {
                    .bytes([])
                } else {
                    .unframed
                }
            let response = HTTPResponse(status: upstream.status, headers: HTTPHeaders(fields), content: content)
            return (response, leftOut)
        }
        var response = HTTPResponse(status: upstream.status, headers: HTTPHeaders(fields), body: upstream.body)
        response.budgetShare = upstream.share  // counted until sent to a client that may read slowly
        return (response, leftOut)
    }

    /// The journal entry's `problem` for an upstream's answer whose fields named `leftOut` were
    /// not sent (``response(from:method:)``); `recording`: record mode, which then records
    /// nothing (`not recorded: ` first): the file would not hold the backend's answer.
    static func leftOutProblem(_ leftOut: [String], recording: Bool) -> String {
        (recording ? "not recorded: " : "")
            + "the upstream's header field\(leftOut.count == 1 ? "" : "s") "
            + leftOut.map { JSONText.shortString($0) }.joined(separator: ", ")
            + " could not be sent (a CR or LF in the value, or an empty name, or a space, tab, CR or LF in the name, which no header field "
            + "can carry) and \(leftOut.count == 1 ? "was" : "were") left out of the answer"
    }

    /// The body of a `HEAD` answer: never asked for.
    private static let noBody = HTTPBodyStream { _, _ in .finished }

    /// The JSON error for a failed exchange: 504 when the upstream was too slow, 502 when it
    /// could not be reached, its answer's `Content-Length` was no valid length, its answer was
    /// unusable (``OutboundError/unusable(reason:)``: cut short in its head), or its answer
    /// was larger than `--max-body-size` (each named as
    /// what it is), 503 when the server is stopping; marked as made by Catbird (``generated(_:)``).
    func response(for error: OutboundError) -> HTTPResponse {
        generated(Self.refusal(for: error))
    }

    /// ``response(for:)``'s error, unmarked: its status and reason.
    static func refusal(for error: OutboundError) -> APIError {
        switch error {
        case .timedOut: return APIError(status: 504, reason: "upstream timed out: \(error)")
        case .shutDown: return APIError(status: 503, reason: "\(error)")
        case .cancelled:
            // Never sent: the client it was for has gone (UpstreamServing).
            return APIError(status: 499, reason: "the client closed the connection; \(error)")
        case let .responseTooLarge(limit):
            return APIError(
                status: 502,
                reason: "upstream answer too large: its body is larger than the limit of \(limit) bytes (--max-body-size, "
                    + "CATBIRD_MAX_BODY_SIZE); nothing of it was sent")
        case let .overBudget(limit, share):
            return APIError.forwardedAnswerOverBudget(limit: limit, tenantShare: share)
        case .unreachable: return APIError(status: 502, reason: "upstream unreachable: \(error)")
        case .invalidContentLength, .unusable: return APIError(status: 502, reason: "\(error)")
        case .untrusted:
            return APIError(
                status: 502,
                reason: "upstream certificate not trusted: \(error); give its CA certificate with --upstream-ca-file "
                    + "(CATBIRD_UPSTREAM_CA_FILE) (docs/files.md#redirect-and-proxy)")
        }
    }

    /// The answer to `CONNECT` (HTTPS tunnelling through the proxy), which is not supported;
    /// sent marked (``generated(_:)-(HTTPResponse)``), in place of a tunnel's.
    static let connectNotSupported = APIError(
        status: 501, reason: "CONNECT (HTTPS through the proxy) is not supported; send plain http:// requests to the proxy").response
}
