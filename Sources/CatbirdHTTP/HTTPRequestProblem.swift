import CatbirdSupport

/// Why a request is refused before a handler answers it (``HTTPHandler/respondToMalformedRequest(_:problem:)``).
///
/// Our own limits, checked before libmicrohttpd's: its per-connection memory (32 KiB) holds
/// the request line, the header section and the response's header section, and a request
/// that fills it gets libmicrohttpd's own HTML error page, or no answer at all
/// (docs/protocol.md#malformed-requests). Ours keep every request we parse well inside it.
public enum HTTPRequestProblem: Sendable, Equatable {
    /// The request-target is longer than `limit` bytes (414, RFC 9110 §15.5.15).
    case targetTooLong(limit: Int)
    /// The request line and header section together exceed `limit` bytes (431, RFC 6585 §5).
    case headTooLarge(limit: Int)
    /// The request-target holds a byte that is not valid UTF-8, or a NUL byte: it could not be
    /// matched or journaled byte-true (400).
    case targetNotText
    /// The query has more than `limit` parameters (`&`-separated; 414). libmicrohttpd keeps a
    /// record per parameter in the connection memory, and 0.9.75 answers nothing at all when
    /// they do not fit; so it is found before it parses them, which it is then kept from doing
    /// past the limit, and answered once the method and headers are read
    /// (``ServerCore/mustRefuseBeforeQueryParsing(_:_:)``).
    case tooManyQueryParameters(limit: Int)
    /// The method is not a token (RFC 9110 §9.1: a run of tchar), e.g. `MéTH`; `isText`: its
    /// bytes are UTF-8, so the journal can hold it as sent (400).
    case methodNotToken(isText: Bool)
    /// A header field line whose name is not a token, e.g. `X-Catbird-Parallel-Id : v` (RFC
    /// 9112 §5.1: no whitespace between the name and the colon; a server answers 400). `name`
    /// is the name as libmicrohttpd read it.
    case fieldNameNotToken(name: String)
    /// A field line folded onto the next (obs-fold: a line starting with a space or tab; RFC
    /// 9112 §5.2 lets a server refuse it with 400). libmicrohttpd 0.9.75 joins such a line into
    /// the field's *name* (`X-F: a` + `  folded` reads as `X-Ffolded: a`), so it is refused.
    /// `name` is that joined name.
    case foldedFieldLine(name: String)
    /// A header field value whose bytes are not UTF-8 (obs-text such as ISO-8859-1's `\xE9`,
    /// which a browser's `fetch` sends for `é`): the journal's header values are JSON text, so
    /// it could only be held altered, and a header matcher compares text (400; RFC 9110 §5.5
    /// asks new fields to use US-ASCII). `name` is the field's name.
    case fieldValueNotUTF8(name: String)
    /// A header field value holding a CR byte not followed by LF (`X-A: a\rX-Injected: yes`):
    /// RFC 9112 section 2.2 has a recipient treat such an element as invalid (or replace the CR
    /// with SP) before processing or forwarding it; a proxy or record mode would otherwise
    /// forward it as sent, and an upstream that ends lines at CR would read an injected field
    /// (400). `name` is the field's name.
    case bareCarriageReturn(name: String)
    /// A NUL byte inside the request line or a header field line (`field`: the field's name as
    /// read up to the NUL; nil: the request line), which no line may hold (RFC 9110 section
    /// 5.5; RFC 9112 section 2.2). libmicrohttpd would hand the line over cut at the NUL, so
    /// `X-Catbird-Parallel-Id: \0attacker` would read as no id at all (400).
    case nulByte(field: String?)
    /// `Content-Length` given more than once, or as a list, with different values (`3` and `5`):
    /// the body's framing is ambiguous, and a server must answer 400 and close the connection
    /// (RFC 9112 section 6.3). libmicrohttpd 0.9.75 would frame the body by the first and read
    /// the rest as the next request. Equal values (`5` twice) are one length and accepted.
    case conflictingContentLength(values: [String])
    /// `Transfer-Encoding` (`value`: its fields' values joined with `, `) whose final coding is
    /// not `chunked` (`gzip`, `identity`), or that applies `chunked` more than once, or is not
    /// spelled as one `chunked` member (`, chunked`): where the body ends cannot be told, so a
    /// server must answer 400 and close the connection (RFC 9112 section 6.1). libmicrohttpd
    /// 0.9.75 would wait for a body it cannot frame and answer nothing.
    case transferCodingNotFinalChunked(value: String)
    /// `Transfer-Encoding` that ends in `chunked` after codings the server does not implement
    /// (`gzip, chunked`; `value` as above): 501 (RFC 9112 section 6.1), and the connection
    /// closed, its body not read.
    case transferCodingNotImplemented(value: String)
    /// `Transfer-Encoding: chunked` and a `Content-Length`: a server must not take both, and one
    /// that reads the length reads the chunked body as another request (request smuggling);
    /// RFC 9112 section 6.1 has it answered as an error and the connection closed (400).
    case contentLengthBesideChunked
    /// An HTTP/1.1 request with no `Host` field, or with more than one (`count`): a server must
    /// answer 400 (RFC 9112 section 3.2).
    case hostFieldCount(Int)
    /// A request-target in none of HTTP/1.1's forms (RFC 9112 section 3.2): not starting with
    /// `/` (origin form), not an absolute URI (`http://host/path`, as sent to a proxy), not `*`,
    /// and not a `CONNECT`'s `host:port`; e.g. `GET nopath` (400).
    case targetForm
    /// An `http` or `https` request-target that names no host (`http:///x`, `http://user@/x`,
    /// `http://:80/x`, `http:/x`), which RFC 9110 section 4.2.1 has a recipient reject (tester
    /// finding T13-F9: proxy mode forwarded `http:///127.0.0.1:8080/x` to 127.0.0.1:8080), or
    /// whose authority is outside RFC 3986 section 3.2's grammar (`http://[::1/x`,
    /// `http://h:99999/x`, a `\`; T13B-F6); ``ServerCore/httpURIAuthorityProblem(_:)`` (400).
    case targetAuthority(URIAuthority.Problem)
    /// A request-target holding a space, a tab or another control byte (U+0000–U+001F, DEL),
    /// which libmicrohttpd 0.9.75 takes (`GET /a b HTTP/1.1` reads as the target `/a b`): RFC
    /// 9112 section 3.2 has no whitespace in a target and section 3 asks for a 400 (tester
    /// finding T13-F2).
    case targetSpaceOrControl
    /// A chunked body's chunk-size line (the size and its chunk extensions, `5;eeee…`) longer
    /// than the about `limit` bytes of connection memory left after the request's head, where
    /// libmicrohttpd 0.9.75 must hold it whole: it would read no further and answer nothing
    /// until the idle timeout (``ChunkLineWatch``). Chunk extensions have no use here, and
    /// none that long (413, RFC 9110 section 15.5.14; the connection closed).
    case chunkLineTooLong(limit: Int)
    /// The request bodies held at once, all connections together, would pass `limit` bytes
    /// with this one (``HTTPServer/Configuration/bodyBudget``): 503, the body not kept
    /// (a declared `Content-Length` refused before it is read; a chunked body read and
    /// discarded), the connection closed. Worth retrying once other uploads end. `holderShare`:
    /// the share the request's holder (its tenant) would have passed with it, when it would
    /// (past it a holder's takes leave that much free for others:
    /// ``CatbirdSupport/ByteBudget/take(_:leaving:by:)``); nil otherwise. `largeRoom`: what
    /// bodies of its size may take of `limit` (a large one leaves the last eighth to bodies of
    /// 64 KiB or less). `whileArriving`: refused while its body arrived (read and discarded),
    /// not at its head.
    case bodiesOverBudget(limit: Int, largeRoom: Int, holderShare: Int?, whileArriving: Bool)

    /// The status to answer with.
    public var status: Int {
        switch self {
        case .targetTooLong, .tooManyQueryParameters: 414
        case .headTooLarge: 431
        case .chunkLineTooLong: 413
        case .transferCodingNotImplemented: 501
        case .bodiesOverBudget: 503
        case .targetNotText, .methodNotToken, .fieldNameNotToken, .foldedFieldLine, .fieldValueNotUTF8, .bareCarriageReturn, .nulByte,
             .conflictingContentLength, .transferCodingNotFinalChunked, .contentLengthBesideChunked, .hostFieldCount,
             .targetForm, .targetAuthority, .targetSpaceOrControl: 400
        }
    }

    /// A sentence for the error body.
    public var reason: String {
        switch self {
        case let .targetTooLong(limit):
            "the request-target is longer than \(limit) bytes"
        case let .headTooLarge(limit):
            "the request line and header fields are larger than \(limit) bytes"
        case .targetNotText:
            "the request-target holds a NUL byte or bytes that are not UTF-8 (percent-encode them)"
        case let .tooManyQueryParameters(limit):
            "the request-target has more than \(limit) query parameters"
        case .methodNotToken:
            "the method is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~; RFC 9110 section 9.1)"
        case let .fieldNameNotToken(name):
            "the header field name \(JSONText.shortStringShowingInvisible(name)) is not an HTTP token (no spaces, not even before the colon; RFC 9112 section 5.1)"
        case .foldedFieldLine:
            "a header field line is folded (a line starting with a space or tab, obs-fold; RFC 9112 section 5.2): send each field on one line"
        case let .fieldValueNotUTF8(name):
            "the value of the header field \(JSONText.shortString(name)) is not UTF-8 (the journal keeps header values as text): send ASCII, or percent-encode it"
        case let .bareCarriageReturn(name):
            "the value of the header field \(JSONText.shortString(name)) holds a CR not followed by LF, which no field may hold (RFC 9112 section 2.2): percent-encode it"
        case let .nulByte(field?):
            "the header field \(JSONText.shortString(field)) holds a NUL byte, which no field may hold (RFC 9110 section 5.5)"
        case .nulByte(nil):
            "the request line holds a NUL byte, which it may not (RFC 9112 section 3)"
        case let .conflictingContentLength(values):
            "the request has Content-Length values that differ (\(values.map { JSONText.shortString($0) }.joined(separator: ", "))), "
                + "so where its body ends is ambiguous (RFC 9112 section 6.3): send one Content-Length; the connection is closed"
        case let .transferCodingNotFinalChunked(value):
            "the request's Transfer-Encoding is \(JSONText.shortString(value)): its last coding must be chunked, once, "
                + "or where its body ends cannot be told (RFC 9112 section 6.1); the connection is closed"
        case let .transferCodingNotImplemented(value):
            "the request's Transfer-Encoding is \(JSONText.shortString(value)): only chunked is implemented "
                + "(RFC 9112 section 6.1); send the body unencoded; the connection is closed"
        case .contentLengthBesideChunked:
            "the request has both Transfer-Encoding: chunked and Content-Length, so where its body ends is ambiguous "
                + "(RFC 9112 section 6.1): send one of them; the connection is closed"
        case .targetForm:
            "the request-target is in no form HTTP/1.1 defines (RFC 9112 section 3.2): it must start with '/', "
                + "or be an absolute URL such as http://host/path (to a proxy), '*', or host:port for CONNECT"
        case .targetAuthority(.noHost):
            "the request-target is an http URI whose authority \(URIAuthority.Problem.noHost.description), which is invalid "
                + "(\(URIAuthority.Problem.noHost.rule)): name the host, as in http://host/path"
        case let .targetAuthority(problem):
            "the request-target is an http URI whose authority \(problem.description), which is invalid (\(problem.rule)): "
                + "give a host, an optional port from 0 to 65535, as in http://host:8080/path, and percent-encode other characters"
        case .targetSpaceOrControl:
            "the request-target holds a space or a control character, which it may not (RFC 9112 section 3.2): "
                + "percent-encode it (a space is %20)"
        case let .chunkLineTooLong(limit):
            "a chunk-size line of the chunked body (the size and its chunk extensions) is longer than the about \(limit) bytes "
                + "this server holds of it (RFC 9112 section 7.1.1): send chunk extensions short, or none; the connection is closed"
        case let .bodiesOverBudget(limit, _, nil, _):
            "the server is holding as many request bodies as its limit of \(limit) bytes for all of them at once allows: "
                + "retry once other uploads ended; the connection is closed"
        case let .bodiesOverBudget(limit, _, share?, _):
            "this request's holder already holds its share of \(share) bytes of the \(limit) bytes of request bodies held at "
                + "once, past which it takes more only while that much stays free for others: retry once its other "
                + "uploads ended; the connection is closed"
        case .hostFieldCount(0):
            "an HTTP/1.1 request must have a Host header field (RFC 9112 section 3.2)"
        case let .hostFieldCount(count):
            "the request has \(count) Host header fields; it may have only one (RFC 9112 section 3.2)"
        }
    }
}
