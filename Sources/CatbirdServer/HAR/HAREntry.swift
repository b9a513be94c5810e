import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import CatbirdWire
import Foundation

/// One journal entry as a HAR 1.2 `entries[]` item (docs/protocol.md#har-export; field list:
/// http://www.softwareishard.com/blog/har-12-spec/).
///
/// What the journal does not know is given as HAR allows: `httpVersion` is `HTTP/1.1` (the
/// version Catbird speaks), `headersSize` -1, `timings.send` and `receive` 0 with the whole
/// `durationMs` as `wait`. Bodies: `text` when the stored bytes read as text by their declared
/// charset (``BodyText``: UTF-8, or ISO-8859-1 byte by byte), else base64 with
/// `encoding: "base64"` (the request's `postData` says so in `_encoding`, as HAR 1.2 has no such
/// field there); a body sent with a `Content-Encoding`, a request's or a response's, is given
/// decoded (``content(_:mimeType:decodedLimit:bodies:)``); a body the journal cut short says so in its `comment`.
struct HAREntry: Encodable {
    let startedDateTime: String
    /// Milliseconds: the sum of `timings`.
    let time: Double
    let request: Request
    let response: Response
    let cache = Cache()
    let timings: Timings
    /// Catbird's own fields (HAR's custom fields start with `_`).
    let _catbird: Catbird

    struct Request: Encodable {
        let method: String
        let url: String
        let httpVersion = "HTTP/1.1"
        let cookies: [Cookie]
        let headers: [NameValue]
        let queryString: [NameValue]
        let postData: PostData?
        let headersSize = -1
        let bodySize: Int
    }

    struct Response: Encodable {
        let status: Int
        let statusText: String
        let httpVersion = "HTTP/1.1"
        let cookies: [Cookie]
        let headers: [NameValue]
        let content: Content
        let redirectURL: String
        let headersSize = -1
        let bodySize: Int
    }

    struct NameValue: Encodable {
        let name: String
        let value: String
        /// HAR 1.2's optional `comment`: for a query pair kept as sent (``queryString(_:)``).
        var comment: String? = nil
    }

    typealias Cookie = NameValue

    /// A request body as HAR 1.2's `postData`: as ``Content`` gives it (decoded from its
    /// `Content-Encoding`, else as sent with a `comment` saying why), without `size` and
    /// `compression`, which `postData` does not have (the request's `bodySize` stays the bytes sent).
    struct PostData: Encodable {
        let mimeType: String
        let text: String
        let _encoding: String?
        let comment: String?

        init(_ content: Content) {
            mimeType = content.mimeType
            text = content.text ?? ""
            _encoding = content.encoding
            comment = content.comment
        }
    }

    struct Content: Encodable {
        /// The full body size in bytes, decoded from its `Content-Encoding` when it was.
        let size: Int
        /// The bytes its `Content-Encoding` saved (``size`` less the bytes sent); absent when the
        /// body was not decoded, or the coding made it larger (``comment`` then says by how much).
        var compression: Int?
        let mimeType: String
        let text: String?
        let encoding: String?
        var comment: String?
    }

    struct Cache: Encodable {}

    struct Timings: Encodable {
        let send: Double
        let wait: Double
        let receive: Double
    }

    /// `_catbird`: the journal entry's own fields, as the journal writes them: `mockId` and
    /// `filePath` always (null when none; the synthesized encoding left them out, tester finding
    /// tester29a-F5), `problem` only when set (a request with no answer of Catbird's own).
    struct Catbird: Encodable {
        let id: Int64
        let tenant: String
        let answeredBy: String
        let mockId: Int64?
        let filePath: String?
        let problem: String?

        private enum CodingKeys: String, CodingKey { case id, tenant, answeredBy, mockId, filePath, problem }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(tenant, forKey: .tenant)
            try container.encode(answeredBy, forKey: .answeredBy)
            try container.encode(mockId, forKey: .mockId)
            try container.encode(filePath, forKey: .filePath)
            try container.encodeIfPresent(problem, forKey: .problem)
        }
    }
}

extension HAREntry {
    /// - Parameter origin: the server's base URL (`http://127.0.0.1:8080`), for an origin-form
    ///   target of a request that carried no `Host`.
    /// - Parameter decodedLimit: the most bytes a body (request or response) is decoded to from its
    ///   `Content-Encoding` (``content(_:mimeType:decodedLimit:bodies:)``).
    /// - Parameter bodies: whether the entry was read with its bodies (`bodies=false`: without).
    init(_ entry: JournalExportEntry, origin: String, decodedLimit: Int, bodies: Bool = true) {
        let sent = Message(entry.request)
        let received = Message(entry.response)
        startedDateTime = entry.time
        time = entry.durationMs
        request = Request(
            method: entry.method, url: Self.absoluteURL(entry.url, method: entry.method, host: sent.first("Host"), origin: origin),
            cookies: Self.requestCookies(entry.request.headers), headers: sent.headers, queryString: Self.queryString(entry.url),
            postData: entry.request.bodySize == 0 && entry.request.body.isEmpty
                ? nil : PostData(Self.requestContent(entry, mimeType: sent.mimeType, decodedLimit: decodedLimit, bodies: bodies)),
            bodySize: entry.request.bodySize)
        response = Response(
            status: entry.status, statusText: HTTPStatus.reasonPhrase(for: entry.status),
            cookies: Self.responseCookies(entry.response.headers), headers: received.headers,
            content: Self.content(entry.response, mimeType: received.mimeType, decodedLimit: decodedLimit, bodies: bodies),
            redirectURL: received.first("Location") ?? "", bodySize: entry.response.bodySize)
        timings = Timings(send: 0, wait: entry.durationMs, receive: 0)
        _catbird = Catbird(
            id: entry.id, tenant: entry.tenant, answeredBy: entry.answeredBy, mockId: entry.mockID, filePath: entry.filePath,
            problem: entry.problem)
    }

    /// What a request and a response are mapped to alike: the header fields in order and the
    /// `Content-Type` as MIME type (`""` without one); their bodies are given by
    /// ``content(_:mimeType:decodedLimit:bodies:)``.
    private struct Message {
        let fields: [(name: String, value: String)]
        let headers: [NameValue]
        let mimeType: String

        init(_ message: JournalExportEntry.Message) {
            fields = message.headers
            headers = message.headers.map { NameValue(name: $0.name, value: $0.value) }
            mimeType = HAREntry.first("Content-Type", in: message.headers) ?? ""
        }

        /// The first value of the header field `name` (compared case-insensitively).
        func first(_ name: String) -> String? { HAREntry.first(name, in: fields) }
    }

    /// The first value of the header field `name` among `fields` (compared case-insensitively).
    static func first(_ name: String, in fields: [(name: String, value: String)]) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `body` as HAR text, read by the charset `contentType` declares (``BodyText``), else its
    /// bytes as base64 (`encoding` "base64"); no text for an empty body.
    static func text(_ body: [UInt8], contentType: String) -> (text: String?, encoding: String?) {
        guard !body.isEmpty else { return (nil, nil) }
        if let text = BodyText.text(of: body, contentType: contentType) { return (text, nil) }
        return (Data(body).base64EncodedString(), "base64")
    }

    /// The request body's ``Content``; one Catbird refused without keeping it (its entry's
    /// `problem` starts `refused `: over `--max-body-size`, refused at its head, past the
    /// buffered-body budget) has that `problem` as its `comment` (tester finding tester42a-F8:
    /// it said "the journal kept the first 0 of 5000 bytes (--journal-body-limit)", an option
    /// that changes nothing there).
    static func requestContent(_ entry: JournalExportEntry, mimeType: String, decodedLimit: Int, bodies: Bool) -> Content {
        var content = content(entry.request, mimeType: mimeType, decodedLimit: decodedLimit, bodies: bodies)
        if entry.request.body.isEmpty, let problem = entry.problem, problem.hasPrefix("refused ") { content.comment = problem }
        return content
    }

    static func truncation(_ message: JournalExportEntry.Message) -> String? {
        guard message.bodyTruncated else { return nil }
        return "the journal kept the first \(message.body.count) of \(message.bodySize) bytes (--journal-body-limit)"
    }

    /// A proxy-form target as is (when its authority is valid: an `http` target with no host or an
    /// invalid one, refused with 400 but journaled, counts as a target of no form; tester finding
    /// T13B-F6); an origin-form one behind `http://` and the `Host` received when it is a URI
    /// authority (``isAuthority(_:)``), else behind the server's own address:
    /// a `Host` such as `a/b?c` or `user@x` would make another URL than the one asked, and the
    /// header is in `request.headers` as received either way (docs/protocol.md#har-export).
    /// The asterisk form (`OPTIONS *`) and the authority form (`CONNECT host:443`, only for
    /// `CONNECT`) name no path: they become that base URL with the path `/`. A target in no form
    /// (`GET nopath`, refused with 400 but journaled) is put behind the base and a `/`
    /// (`http://x/nopath`): it never names a host. Bytes a URL may not hold are percent-encoded
    /// (``HARURL/encoded(_:)``), so the url parses wherever HAR files are read.
    ///
    /// A raw fragment (from a `#` on, which no request-target may hold, but some raw clients
    /// send) is left out, as HAR 1.2 says of `request.url` and as it was left out of what was
    /// forwarded and of a recording's file name (tester finding tester44a-F3); the journal's
    /// `url` keeps it as received.
    static func absoluteURL(_ target: String, method: String, host: String?, origin: String) -> String {
        let target = target.firstIndex(of: "#").map { String(target[..<$0]) } ?? target
        if URIAuthority.Span(ofHTTP: target[...]) != nil, HTTPRequest.httpURIAuthorityProblem(target, method: method) == nil {
            return HARURL.encoded(target)
        }
        let base = if let host, isAuthority(host) { "http://\(host)" } else { origin }
        if target.hasPrefix("/") { return base + HARURL.encoded(target) }
        if method == "CONNECT", isAuthority(target) { return "http://\(target)/" }  // authority form
        if target == "*" { return base + "/" }  // asterisk form
        return base + "/" + HARURL.encoded(target)  // a target of no form
    }

    /// Whether `host` is `host[:port]` as RFC 9110 §7.2 allows in `Host` (RFC 3986 §3.2.2): a
    /// name of letters, digits, `-._~!$&'()*+,;=` and `%XX`, or an IPv6 literal in brackets, then
    /// an optional `:` and a port from 0 to 65535 (``URIAuthority/problem(_:allowsUserInfo:)``).
    /// Not empty; no `/`, `?`, `#`, `@`, space or non-ASCII.
    static func isAuthority(_ host: String) -> Bool {
        URIAuthority.problem(host[...].utf8, allowsUserInfo: false) == nil
    }

    /// The target's query string as pairs, percent-decoded (`+` a space); a pair whose name or
    /// value is kept as sent, its decoded bytes not being UTF-8, says so in its `comment`, since
    /// `q=%E9` kept as sent reads as `q=%25E9` decoded (tester finding tester39a-F5).
    ///
    /// A raw fragment is left out first, as in ``absoluteURL(_:method:host:origin:)``: a `?` in it
    /// (`/p#x?a=1`) starts no query (tester finding tester64a-F1: `a=1` was exported as a pair of a
    /// url that has no query).
    static func queryString(_ target: String) -> [NameValue] {
        let beforeFragment = target.prefix { $0 != "#" }
        guard let mark = beforeFragment.firstIndex(of: "?") else { return [] }
        let query = beforeFragment[beforeFragment.index(after: mark)...]
        return QueryParameters.decodedPairs(query).map {
            NameValue(name: $0.name, value: $0.value, comment: $0.keptAsSent ? Self.keptAsSentComment : nil)
        }
    }

    /// The `comment` of a query pair ``queryString(_:)`` kept as sent.
    static let keptAsSentComment = "kept as sent, percent-encoded: its decoded bytes are not UTF-8"

    /// `Cookie: a=1; b=2` → `a`, `b`.
    static func requestCookies(_ headers: [(name: String, value: String)]) -> [Cookie] {
        headers.filter { $0.name.lowercased() == "cookie" }.flatMap { header in
            QueryParameters.split(header.value[...], at: UInt8(ascii: ";")).compactMap { cookie(String($0)) }
        }
    }

    /// Each `Set-Cookie`'s name and value (attributes after the first `;` left out).
    static func responseCookies(_ headers: [(name: String, value: String)]) -> [Cookie] {
        headers.filter { $0.name.lowercased() == "set-cookie" }.compactMap { header in
            cookie(String(QueryParameters.split(header.value[...], at: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)[0]))
        }
    }

    /// A `name=value` pair as RFC 6265bis §5.6 (what browsers do) reads it: the name and the
    /// value without the whitespace around them (`sid = abc` is `sid` and `abc`), and a pair
    /// without `=` a cookie with an empty name and that value (`novalue`; it was a cookie named
    /// `novalue`, and the spaces were kept: tester finding tester31a-F1). Nil for an empty pair.
    private static func cookie(_ pair: String) -> Cookie? {
        let trimmed = pair.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let parts = QueryParameters.split(trimmed[...], at: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return Cookie(name: "", value: trimmed) }
        return Cookie(name: parts[0].trimmingCharacters(in: .whitespaces), value: parts[1].trimmingCharacters(in: .whitespaces))
    }
}
