import CatbirdSupport

extension ServerCore {
    /// What makes the request's framing or target ambiguous, which libmicrohttpd 0.9.75 lets
    /// through (docs/protocol.md#malformed-requests): `Content-Length` values that differ
    /// (RFC 9112 section 6.3: 400, and the connection closed, which the malformed-request answer
    /// does), a `Transfer-Encoding` other than `chunked` alone, or beside a `Content-Length`
    /// (RFC 9112 section 6.1, ``transferEncodingProblem(_:asRead:hasContentLength:)``), an HTTP/1.1
    /// request without exactly one `Host` field, and a request-target holding a space or a
    /// control byte or in none of HTTP/1.1's forms (both RFC 9112 section 3.2), or an `http` URI
    /// with no host or an invalid authority (RFC 9110 section 4.2.1, RFC 3986 section 3.2;
    /// ``httpURIAuthorityProblem(_:)``).
    /// One pass over the fields, comparing names only when their length matches.
    /// - Parameter transferEncodingAsRead: the first `Transfer-Encoding` value as libmicrohttpd
    ///   keeps it (trailing whitespace included), asked only when the request has one.
    static func framingProblem(_ context: RequestContext, transferEncodingAsRead: () -> String?) -> HTTPRequestProblem? {
        if context.targetHasSpaceOrControl { return .targetSpaceOrControl }  // seen by the target's one scan
        if !isInATargetForm(context.target, method: context.method) { return .targetForm }
        if let problem = HTTPRequest.httpURIAuthorityProblem(context.target, method: context.method) {
            return .targetAuthority(problem)
        }
        var hosts = 0
        var length: Substring?
        var conflicting = false
        var transferEncodings: [String] = []
        for field in context.headers.fields {
            switch field.name.utf8.count {
            case 4 where field.name.equalsIgnoringASCIICase("Host"):
                hosts += 1
            case 17 where field.name.equalsIgnoringASCIICase("Transfer-Encoding"):
                transferEncodings.append(field.value)
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
        // RFC 9112 section 6.1: an HTTP/1.0 request with Transfer-Encoding has faulty framing,
        // and the connection is closed after its answer (tester finding tester40b-F6: kept alive).
        if !transferEncodings.isEmpty, context.version == "HTTP/1.0" { context.closesAfterAnswer = true }
        if !transferEncodings.isEmpty,
           let problem = transferEncodingProblem(
               transferEncodings, asRead: transferEncodingAsRead() ?? "", hasContentLength: length != nil) {
            return problem
        }
        if conflicting {
            return .conflictingContentLength(values: context.headers.values("Content-Length"))
        }
        // Two Host fields are refused whatever the version (RFC 9112 section 3.2; tester finding
        // tester48a-F4: an HTTP/1.0 request with two was served, the Host check reading the first).
        if hosts > 1 || (context.version == "HTTP/1.1" && hosts == 0) { return .hostFieldCount(hosts) }
        return nil
    }
}

extension ServerCore {
    /// Why a request's `Transfer-Encoding` fields (`values`, in order, trimmed; `asRead`: the
    /// first as libmicrohttpd keeps it) leave its body unframed, or nil for the one framing
    /// libmicrohttpd 0.9.75 reads: one field, exactly `chunked` (any case, no trailing space).
    /// For anything else it waits for a body it cannot frame and answers nothing until the
    /// client or the idle timeout gives up. RFC 9112 section 6.1: a final coding other than
    /// `chunked` (`gzip`, `identity`), or `chunked` applied twice, is 400 and the connection
    /// closed; a coding the server does not implement before a final `chunked` (`gzip, chunked`,
    /// also on two lines) is 501; `chunked` beside a `Content-Length` is 400 and closed (a
    /// request-smuggling shape: a server in front that reads the length reads another request).
    static func transferEncodingProblem(_ values: [String], asRead: String, hasContentLength: Bool) -> HTTPRequestProblem? {
        if values.count == 1, values[0].equalsIgnoringASCIICase("chunked") {
            // `chunked ` (a space after it) reads as another coding to libmicrohttpd.
            guard asRead.equalsIgnoringASCIICase("chunked") else { return .transferCodingNotFinalChunked(value: asRead) }
            return hasContentLength ? .contentLengthBesideChunked : nil
        }
        let codings = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingOptionalWhitespace() }.filter { !$0.isEmpty }
        let value = values.joined(separator: ", ")
        let chunked = codings.filter { String($0).equalsIgnoringASCIICase("chunked") }.count
        if chunked == 1, let last = codings.last, String(last).equalsIgnoringASCIICase("chunked"), codings.count > 1 {
            return .transferCodingNotImplemented(value: value)
        }
        return .transferCodingNotFinalChunked(value: value)
    }

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

    /// What makes `target`, an `http` or `https` URI (the scheme in any case), invalid in its
    /// authority, or nil (also for other schemes and forms): no `//` after the scheme (`http:/x`)
    /// or no host in the authority (`http:///x`, `http://user@/x`, `http://:80/x`, `[]`), which
    /// RFC 9110 section 4.2.1 has a recipient reject; or an authority outside RFC 3986 section
    /// 3.2's grammar (``URIAuthority/problem(_:allowsUserInfo:)``): an unclosed IP literal
    /// (`http://[::1/x`), a port not from 0 to 65535 (`http://h:-1/x`, `http://h:99999/x`), a `\`
    /// (`http://127.0.0.1:8080\@evil.example/x`). libcurl, handed such a target in proxy mode,
    /// forwarded `http:///127.0.0.1:8080/x` to 127.0.0.1:8080 (tester finding T13-F9) and read
    /// `127.0.0.1:8080\` as user information, sending the request to evil.example where a WHATWG
    /// parser reads the host 127.0.0.1 (T13B-F6). Other schemes are not checked (`file:///x` has an
    /// empty host by design).
    /// The scheme is compared byte by byte, with no lowercased copy (``URIAuthority/Span``).
    static func httpURIAuthorityProblem(_ target: String) -> URIAuthority.Problem? {
        let uri = target[...]
        guard let afterScheme = URIAuthority.afterHTTPScheme(uri) else { return nil }
        guard let authority = URIAuthority.Span(uri, afterScheme: afterScheme) else { return .noHost }
        return URIAuthority.problem(uri.utf8[authority.whole], allowsUserInfo: true)
    }
}

extension ServerCore {
    /// Whether libmicrohttpd would send `100 Continue` for this head: HTTP/1.1, `Expect:
    /// 100-continue` (case-insensitive, RFC 9110 §10.1.1), and a body announced (a
    /// `Content-Length` above 0 or `Transfer-Encoding`, the only framings left once
    /// ``framingProblem(_:transferEncodingAsRead:)`` passed).
    static func waitsForContinue(_ context: RequestContext) -> Bool {
        guard context.version == "HTTP/1.1",
              let expect = context.headers.first("Expect"),
              expect.lowercased() == "100-continue"
        else { return false }
        if let declared = context.headers.first("Content-Length") { return declared != "0" }
        return context.headers.first("Transfer-Encoding") != nil
    }

    /// The body size this head's `Content-Length` declares, in bytes; nil without one. A value
    /// of digits past `Int`'s range (2^63 to 2^64 - 1, which libmicrohttpd reads as an unsigned
    /// 64-bit size) is `Int.max`, refused as too large like any other past the limit (tester
    /// finding tester48a-F2: it read as no length at all, and the body was taken without a
    /// limit until the client gave up). libmicrohttpd refuses other forms before this is read.
    static func declaredBodySize(_ context: RequestContext) -> Int? {
        guard let text = context.headers.first("Content-Length") else { return nil }
        if let size = Int(text) { return size }
        return !text.isEmpty && text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) ? Int.max : nil
    }

    /// Whether libmicrohttpd 0.9.75 sent `100 Continue` for this head though it announced no
    /// body (HTTP/1.1, `Expect: 100-continue`, no `Content-Length` above 0 and no
    /// `Transfer-Encoding`): it sends one whenever no response is queued at the head.
    static func getsContinueWithoutBody(_ context: RequestContext) -> Bool {
        guard context.version == "HTTP/1.1",
              let expect = context.headers.first("Expect"),
              expect.lowercased() == "100-continue"
        else { return false }
        return !waitsForContinue(context)
    }
}
