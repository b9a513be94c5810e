import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import CatbirdWire
import Foundation

extension CatbirdHandler {
    /// A file mock's body cut short because its file shrank while it was sent (the connection
    /// was closed): a warning naming the file and the bytes that went out (docs/files.md). The
    /// journal entry, written when the answer started, keeps the full size.
    func fileBodyEndedShort(path: String, sent: UInt64, promised: UInt64) {
        log.warning("file mock '\(path)' shrank while it was sent: \(sent) of \(promised) bytes went out; the connection was closed")
    }

    /// A file mock's body cut short because reading its file failed (the connection was
    /// closed): a warning naming the file, the error (`strerror`) and the bytes that went out.
    func fileBodyReadFailed(path: String, sent: UInt64, promised: UInt64, errorNumber: Int32) {
        log.warning(
            "file mock '\(path)' could not be read while it was sent (\(String(cString: strerror(errorNumber)))): "
                + "\(sent) of \(promised) bytes went out; the connection was closed")
    }

    /// Journals a request whose request line was read but that Catbird never answered
    /// (docs/protocol.md#malformed-requests): libmicrohttpd refused it with its own error page,
    /// or the client left or the connection timed out before it was complete; and a request
    /// line that had not ended `--head-timeout` after its bytes arrived (no method, no target). The entry has
    /// what is known: the target, the arrival time, the method and headers when the header
    /// section had been accepted (else the method is `""`, and the tenant the default one, the
    /// parallel id being unknown), the body bytes that had arrived, the status libmicrohttpd
    /// sent (its headers and HTML body are not recorded) or 499/408 when nothing was sent, the
    /// 408 Catbird wrote itself for a slow head or a stalled body as it went out (its status,
    /// header fields and body: ``CatbirdHTTP/HTTPRequestEnding/written``), and `problem` saying which. Control requests are not journaled.
    /// A request still arriving when the server stops is journaled too, before the journal's
    /// last round (tester finding tester22b-F6: an upload cut by a restart left no trace); a
    /// stopping server's own 503s are logged and counted, not journaled.
    func requestEndedUnanswered(_ request: HTTPRequest, ending: HTTPRequestEnding) {
        let (status, problem) = Self.statusAndProblem(ending, headerSectionRead: !request.method.isEmpty)
        // A refusal is worth a warning; a client hanging up or going quiet is ordinary (info).
        let refused = switch ending {
        case .refusedByLibrary, .noRoomToAnswer: true
        default: false
        }
        // Catbird's own 408, written, is an answer: counted with the answered requests (tester
        // finding tester42b-F9: it was counted as "nothing sent"); unanswered when it could not be written.
        let nothingSent: RequestMetrics.Unanswered? = switch ending {
        case .timedOut: .timedOut
        case .headTimedOut, .requestLineTimedOut, .bodyStalled, .bodyClosedForRoom, .headClosedForRoom, .uploadClosedOverShare:
            ending.written == nil ? .timedOut : nil
        case .clientLeft: .clientLeft
        case .idleClosedForRoom: .closedForRoom
        case .refusedByLibrary, .refusedWhileStopping, .noRoomToAnswer, .serverStopped: nil
        }
        // A stopping server's own 503 is logged and counted like every answer, not journaled.
        let journaled = if case .refusedWhileStopping = ending { false } else { true }
        noteUnanswered(request, status: status, why: problem, warning: refused, nothingSent: nothingSent) { tenant in
            guard journaled else { return }
            var entry = serving.nothingSentEntry(request, tenant: tenant, status: status, problem: problem, written: ending.written)
            if request.method.isEmpty, let (url, left) = Self.withoutCredentials(entry.url) {
                // Its tenant unknown (the header section was not read), the entry goes to the
                // default tenant's journal, which every client reads: a shard's query (a token)
                // or userinfo (a password) would be read there by any other (tester findings
                // tester56a-F1, tester58a-F1).
                entry.url = url
                entry.problem = (entry.problem.map { $0 + "; " } ?? "") + Self.leftOutProblem(left)
            }
            if request.discardedBodySize > 0, let unread = Self.unreadBodyProblem(of: request) {
                // Past the size limit before it ended: its bytes were discarded as they came, and
                // `bodySize` counts them (tester finding tester52c-F2: 55 MiB sent in chunks, then
                // a hang-up, was journaled as `bodySize` 0, not cut short).
                entry.markRequestBodyIncomplete(declaredSize: request.discardedBodySize)
                entry.problem = problem + "; " + unread
            } else if Self.leftBodyUnfinished(request) {
                entry.markRequestBodyIncomplete(declaredSize: request.headers.first("Content-Length").flatMap { Int($0) })
            }
            journal.append(entry)
        }
    }

    /// `target` without its query and, in absolute form, without the userinfo of its authority
    /// (`http://user:pw@host/p?q` → `http://host/p`), and what was left out (`its userinfo and
    /// query`); nil when it has neither. Not a `?…` placeholder in its place: a HAR export read
    /// that as a query parameter named `…` (tester finding tester58a-F2).
    static func withoutCredentials(_ target: String) -> (url: String, left: String)? {
        var url = Substring(target)
        var parts: [String] = []
        if let scheme = url.range(of: "://") {
            let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if let at = authority.lastIndex(of: "@") {
                url = url[..<scheme.upperBound] + url[url.index(after: at)...]
                parts.append("userinfo")
            }
        }
        if let query = url.firstIndex(of: "?") {
            url = url[..<query]
            parts.append("query")
        }
        return parts.isEmpty ? nil : (String(url), "its " + parts.joined(separator: " and "))
    }

    /// The `problem` sentence of a request journaled in the default tenant because its header
    /// section was not read, whose query or userinfo (`left`: `its query`) is left out of its `url`.
    static func leftOutProblem(_ left: String) -> String {
        "\(left) left out of the url: the header section was not read, so the request's tenant is unknown and it is "
            + "journaled in the default tenant's journal, which every client reads (docs/protocol.md#what-libmicrohttpd-answers-itself)"
    }

    /// The `problem` of a CORS preflight journaled in the default tenant for a request that
    /// will carry a parallel id (``CORS/asksForParallelId(_:)``), whose query or userinfo
    /// (`left`) is left out of its `url`.
    static func preflightLeftOutProblem(_ left: String) -> String {
        "\(left) left out of the url: a browser's CORS preflight carries no X-Catbird-Parallel-Id (it names the field in "
            + "Access-Control-Request-Headers; the value comes with the request after it), so its tenant is unknown and it is "
            + "journaled in the default tenant's journal, which every client reads (docs/files.md#cors)"
    }

    /// Whether `request`, which ended before it was answered, announced a body it did not
    /// finish (a `Transfer-Encoding`, or a `Content-Length` past the bytes that arrived); false
    /// when it announced none, or its body was refused and discarded. Such a body is journaled
    /// as cut short, its `bodySize` the declared `Content-Length` when there is one (tester
    /// finding tester48b-F4: count and find matched its 10 bytes as a whole body of 100).
    static func leftBodyUnfinished(_ request: HTTPRequest) -> Bool {
        guard request.discardedBodySize == 0, !request.method.isEmpty else { return false }
        if let declared = request.headers.first("Content-Length").flatMap({ Int($0) }) { return declared > request.body.count }
        return request.headers.first("Transfer-Encoding") != nil
    }

    /// The journal `problem` of a request Catbird refused (``refused(_:_:journaled:)``) whose body
    /// is not in its entry: one refused for `--max-body-size` (`bodySize` is then the declared
    /// `Content-Length`, none of it read, or, for a chunked body, the bytes received and
    /// discarded), or one refused at its head while it announced a body (`Transfer-Encoding`,
    /// a `Content-Length` above 0). Nil for a request without a body (a 414 `GET`): its entry
    /// lacks nothing (docs/protocol.md#what-the-journal-records; wire6 and json6 leftovers).
    static func unreadBodyProblem(of request: HTTPRequest) -> String? {
        let declared = request.headers.first("Content-Length")
        if request.discardedBodySize > 0 {
            if let declared, Int(declared) == nil {
                // Past Int64's range (tester finding tester48a-F2): held to the largest it has.
                // Quoted whole up to 40 bytes (tester finding tester49a-F1: leading zeros were cut
                // at 20 bytes, and the length of the text, not its value, decided "held").
                return "refused before its body was read: bodySize is the declared Content-Length (\(JSONText.cutWithLength(declared, maxBytes: 40))) "
                    + "held to \(Int.max), not bytes received"
            }
            return declared != nil
                ? "refused before its body was read: bodySize is the declared Content-Length, not bytes received"
                : "refused once its chunked body passed the size limit: bodySize is the bytes received, which were discarded"
        }
        let codings = request.headers.values("Transfer-Encoding")
        if !codings.isEmpty {
            return "refused at its head: its body (Transfer-Encoding: \(codings.joined(separator: ", ").utf8Prefix(100))) was not read"
        }
        if let declared, declared != "0" {
            return "refused at its head: its body (Content-Length: \(declared.utf8Prefix(20))) was not read"
        }
        return nil
    }

    /// What every request Catbird refused, or that ended without an answer, goes through: unless
    /// it is a control request (absolute-form `GET http://host/catbird/…` too), `journaling` is
    /// called with its tenant (the one its parallel id names; the default tenant when that
    /// field was refused for not being UTF-8, and so is not among the headers) to journal it;
    /// then its metrics (answered by `control` or `none`; or, when `nothingSent` says why
    /// nothing was sent, as unanswered) and one log line, `status` and `why`, at warning or
    /// info level.
    func noteUnanswered(
        _ request: HTTPRequest, status: Int, why: String, warning: Bool, nothingSent: RequestMetrics.Unanswered? = nil,
        journaling: (TenantID) -> Void
    ) {
        let tenant = Self.tenant(of: request)
        let isControl = Self.controlRequest(request) != nil
        if !isControl { journaling(tenant) }
        if let nothingSent {
            metrics.recordUnanswered(nothingSent)
        } else {
            metrics.record(
                answeredBy: isControl ? "control" : CatbirdRequest.AnsweredBy.unanswered.rawValue, status: status,
                latency: ContinuousClock.now - request.receivedAt)
        }
        let target = request.target.isEmpty ? "?" : request.target.utf8Prefix(200)
        let line = "\(request.method.isEmpty ? "?" : request.method) \(target) → \(status): \(why) tenant=\(tenant)"
        if warning { log.warning(line) } else { log.info(line) }
    }

    /// How a connection the watch closed with its 408 ended, for the entry's `problem`: the 408
    /// sent (`written`, the entry's answer), or not written whole (the socket was still
    /// sending an earlier answer: the entry has no header fields nor body).
    private static func closing(_ written: WrittenAnswer?) -> String {
        written == nil
            ? "the 408 could not be written (the connection was still sending an earlier answer), the connection closed"
            : "408 sent, the connection closed"
    }

    /// The status journaled for `ending`, and the entry's `problem` sentence.
    /// - Parameter headerSectionRead: whether libmicrohttpd had accepted the header section
    ///   (then a refusal was about the body).
    static func statusAndProblem(_ ending: HTTPRequestEnding, headerSectionRead: Bool) -> (status: Int, problem: String) {
        switch ending {
        case let .refusedByLibrary(status):
            let what: String
            if headerSectionRead {
                // libmicrohttpd answers 431 after the head only for a chunked body's trailer
                // section that does not fit the connection memory (tester finding try10b F7).
                // 413 after the head: a chunk size too large for 64 bits (tester finding tester22b-F5:
                // `FFFFFFFFFFFFFFFFFFFF` was journaled as "not hex").
                what = switch status {
                case 431: "the chunked body's trailer section (the fields after its last chunk) did not fit the connection memory"
                case 413: "a chunk size of the chunked body was too large a number (past 64 bits)"
                // libmicrohttpd 0.9.75 also refuses whitespace before a chunk extension's `;`
                // (`3 ;x=1`, allowed by RFC 9112 section 7.1.1) and a trailer line without a
                // colon (tester finding tester56b-F5: each was said to be a chunk size not hex).
                default: "the chunked body's framing was malformed as libmicrohttpd reads it (a chunk size that is not hex, a chunk "
                    + "without its CRLF, whitespace before a chunk extension's ';', which libmicrohttpd 0.9.75 refuses though "
                    + "RFC 9112 allows it, or a trailer line without a colon)"
                }
            } else {
                what = switch status {
                case 413: "the Content-Length was too large a number"
                case 431: "the header section (or the Cookie field libmicrohttpd parses) did not fit the connection memory"
                default: "the header section was malformed (a line without a colon, a Content-Length that is not a number)"
                }
            }
            return (status, "libmicrohttpd refused the request with its own \(status) page (not recorded): \(what)")
        case .timedOut:
            return (MockServing.clientTimedOutStatus, "the connection timed out before the request was complete; nothing was sent")
        case let .headTimedOut(limit, written):
            return (
                MockServing.clientTimedOutStatus,
                "the request line and header fields were not complete within \(limit.components.seconds) s (--head-timeout): "
                    + closing(written))
        case let .requestLineTimedOut(limit, written):
            return (
                MockServing.clientTimedOutStatus,
                "the request line had not ended \(limit.components.seconds) s after its first bytes arrived (--head-timeout), so its method "
                    + "and target are unknown: " + closing(written))
        case let .bodyStalled(limit, written):
            return (
                MockServing.clientTimedOutStatus,
                "the request body received no byte for \(limit.components.seconds) s (--head-timeout): " + closing(written))
        case let .uploadClosedOverShare(written):
            return (
                MockServing.clientTimedOutStatus,
                "the request body was still arriving while every connection slot was taken and uploads under way held more "
                    + "than their share of them (its tenant more than 1/8, or all tenants together more than 7/8; closed to make "
                    + "room): " + closing(written))
        case let .headClosedForRoom(written):
            return (
                MockServing.clientTimedOutStatus,
                "the request line and header fields were still arriving after \(HTTPRequestEnding.roomQuietLimit.components.seconds) s "
                    + "(closed to make room: every connection slot was taken): " + closing(written))
        case let .bodyClosedForRoom(written):
            return (
                MockServing.clientTimedOutStatus,
                "the request body received no byte for \(HTTPRequestEnding.roomQuietLimit.components.seconds) s "
                    + "(closed to make room: every connection slot was taken): " + closing(written))
        case .clientLeft:
            return (MockServing.clientLeftStatus, "the client closed the connection before the request was complete; nothing was sent")
        case .serverStopped:
            return (503, "the server stopped before the request was complete; nothing was sent")
        case .idleClosedForRoom:
            return (
                503,
                "every connection slot was taken, and the server closed this keep-alive connection, seen idle between two "
                    + "requests, to make room just as this request arrived: nothing was sent and its body, if any, was not read "
                    + "(HTTP clients retry such a request on a new connection; docs/operations.md#connections-and-memory)")
        case let .refusedWhileStopping(status):
            return (status, "the server is stopping (not journaled)")
        case let .noRoomToAnswer(room):
            return (
                431,
                "nothing was sent: the request's head left \(max(room, 0)) of the \(HTTPServer.Configuration.defaultConnectionMemoryLimit) "
                    + "bytes libmicrohttpd gives each connection for the answer's head, fewer than the \(ResponseHeadRoom.leastToAnswer) "
                    + "any answer needs (docs/protocol.md#response-head-size), so the connection was closed unanswered before the "
                    + "request was matched; send fewer or shorter header fields")
        }
    }
}
