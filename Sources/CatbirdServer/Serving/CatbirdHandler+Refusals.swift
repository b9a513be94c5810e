import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// The answers the server makes itself when it cannot serve a request: a slow head, a stalled
/// body, the stop, an oversized body, a malformed request, a refused parallel id; journaled,
/// and marked as the server's in the forwarding modes.
extension CatbirdHandler {
    /// The 408 written to a connection whose request head took longer than `--head-timeout`, or
    /// that was closed to make room while its head was under way (its reason says both, tester
    /// finding tester41a-F2: it named only the 30-s deadline, after 1.8 s)
    /// (docs/protocol.md#malformed-requests); made once at start, marked as Catbird's own in
    /// redirect and proxy modes (``generatedInForwardingModes(_:)``).
    func respondToSlowHead(timeout: Duration) -> HTTPResponse {
        // With --head-timeout off (`timeout` zero) only the closing for room writes it
        // (tester finding tester41a-F2: it said "within 0 seconds").
        let deadline = timeout == .zero ? "" : "were not complete within \(timeout.components.seconds) seconds "
            + "(--head-timeout, CATBIRD_HEAD_TIMEOUT), or "
        return generatedInForwardingModes(
            APIError(
                status: 408,
                reason: "the request line and header fields \(deadline)were still arriving after a second while every connection "
                    + "slot was taken; the connection is closed: send the whole head at once"))
    }

    /// The 408 written to an upload closed for room past its tenant's share of the slots in
    /// uploads under way (tester finding tester41a-F5), marked as Catbird's own in redirect and
    /// proxy modes.
    func respondToUploadClosedOverShare() -> HTTPResponse {
        generatedInForwardingModes(APIError(status: 408, reason: Self.uploadClosedOverShareReason))
    }

    /// The 408 written to a connection whose request body received no byte for `--head-timeout`
    /// (docs/operations.md#connections-and-memory).
    func respondToStalledBody(timeout: Duration) -> HTTPResponse {
        generatedInForwardingModes(
            APIError(
                status: 408,
                reason: "the request body received no byte for "
                    + (timeout == .zero ? "" : "\(timeout.components.seconds) seconds (--head-timeout, CATBIRD_HEAD_TIMEOUT), or for ")
                    + "a second while every connection slot was taken; the connection is closed and the body dropped: send it again"))
    }

    /// The stopping server's 503 (``CatbirdHTTP/HTTPResponse/serverStopping``), sent in place
    /// of a forwarded request's answer among others: marked as Catbird's own in redirect and
    /// proxy modes (``generatedInForwardingModes(_:)``), so that a recording Catbird in
    /// front never writes it as the backend's answer (tester finding T14-F7).
    var stoppingResponse: HTTPResponse {
        generatedInForwardingModes(HTTPResponse.serverStopping)
    }

    /// `response` marked `X-Catbird-Generated-By` in redirect and proxy modes
    /// (``Forwarding/generated(_:)-(HTTPResponse)``), whatever the request: for the answers
    /// made once and sent where the request's target may be unknown (a head not read whole),
    /// so their mark cannot depend on it as a refusal's does (``marked(_:refusing:)``); a
    /// control client ignores the extra field.
    private func generatedInForwardingModes(_ response: HTTPResponse) -> HTTPResponse {
        upstream.map { $0.forwarding.generated(response) } ?? response
    }

    private func generatedInForwardingModes(_ error: APIError) -> HTTPResponse {
        generatedInForwardingModes(error.response)
    }

    /// 413, journaled (``refused(_:_:journaled:)``).
    func respondToOversizedBody(_ request: HTTPRequest, limit: Int) -> HTTPAnswer {
        refused(request, APIError.payloadTooLarge(limit: limit, control: Self.controlRequest(request) != nil))
    }

    /// 414, 431 or 400 with our JSON error body (docs/protocol.md#malformed-requests),
    /// journaled like a 413 (a refused field line left out), except a target or method with a
    /// NUL or bytes that are not UTF-8, or a request line with a NUL: the journal could only
    /// hold it altered.
    func respondToMalformedRequest(_ request: HTTPRequest, problem: HTTPRequestProblem) -> HTTPAnswer {
        switch problem {
        case .targetNotText:
            // Journaled with its url written as text (``HTTPRequest/target``), and said so: an
            // app sending a raw ISO-8859-1 `é` left no trace but a log line (tester38a-F2).
            let body = Self.unreadBodyProblem(of: request).map { "; " + $0 } ?? ""
            return refused(request, APIError(status: problem.status, reason: problem.reason), problem: Self.nonTextTargetProblem + body)
        case .methodNotToken(isText: false), .nulByte(field: nil):
            return refused(request, APIError(status: problem.status, reason: problem.reason), journaled: false)
        case let .fieldValueNotUTF8(name) where name.equalsIgnoringASCIICase(TenantID.headerName):
            // Decoded, `a\xFF` and `a\xFE` would read alike and share a tenant: no tenant to
            // journal it in (docs/tenancy.md#tenant-of-a-request).
            return refused(request, .badRequest("the \(TenantID.headerName) header is not valid UTF-8"), journaled: false)
        case let .nulByte(field?) where field.equalsIgnoringASCIICase(TenantID.headerName),
             let .bareCarriageReturn(field) where field.equalsIgnoringASCIICase(TenantID.headerName):
            // The parallel id holds a NUL or a bare CR: its tenant is unknown, and the default
            // tenant's journal got the shard's query, Authorization and Cookie (tester finding
            // tester62b-F2, as tester58a-F11 for a malformed line). Not journaled.
            return refused(request, APIError(status: problem.status, reason: problem.reason), journaled: false)
        case .fieldNameNotToken where Self.namesParallelID(request, problem), .foldedFieldLine where Self.namesParallelID(request, problem):
            // A shard's request whose parallel-id line is malformed (`X-Catbird-Parallel-Id : s1`,
            // a tab before the colon, a folded line): its tenant is unknown, and the default
            // tenant's journal, which every client reads, got its query, Authorization and Cookie
            // (tester finding tester58a-F11). Not journaled; logged and counted as the others.
            return refused(request, APIError(status: problem.status, reason: problem.reason), journaled: false)
        case let .bodiesOverBudget(limit, largeRoom, share, whileArriving):
            // Refused at its head (a declared Content-Length, unread) or while its body arrived
            // (read and discarded, answered once it ended; tester finding tester41a-F4: such a
            // body of a declared length was said to be "refused before its body was read").
            return refused(
                request, APIError.bodiesOverBudget(limit: limit, largeRoom: largeRoom, tenantShare: share),
                problem: whileArriving
                    ? "refused while its body arrived, the server's buffered bodies being at their limit: bodySize is the "
                        + "bytes received, which were discarded"
                    : nil)
        case .chunkLineTooLong:
            // Refused while its body was read (ServerCore's ChunkLineWatch): what arrived of it was dropped.
            return refused(
                request, APIError(status: problem.status, reason: problem.reason),
                problem: "refused while its chunked body was read, at a chunk-size line too long to hold: bodySize is the "
                    + "chunk data received, which was discarded")
        default:
            return refused(request, APIError(status: problem.status, reason: problem.reason))
        }
    }

    /// Whether `request`, refused for `problem` (a field name that is not a token, or a folded
    /// line), has a field line that may name the parallel id however malformed: the name
    /// refused, its bytes that are not token characters left out, is the parallel id's or empty
    /// (`X-Catbird-Parallel-Id\r: s1`, a VT, a quote or an `é` before the colon, `: s1`: tester
    /// finding tester63a-F1, where only spaces and tabs were left out and such a request, its
    /// tenant unknown, went to the default tenant's journal with its query, Authorization and
    /// Cookie), or one of its fields is.
    static func namesParallelID(_ request: HTTPRequest, _ problem: HTTPRequestProblem) -> Bool {
        let named = { (name: String) in name.trimmingCharacters(in: .whitespaces).equalsIgnoringASCIICase(TenantID.headerName) }
        switch problem {
        case let .fieldNameNotToken(name):
            let tokenBytes = name.utf8.filter(HTTPToken.isTokenCharacter)
            if tokenBytes.isEmpty || String(decoding: tokenBytes, as: UTF8.self).equalsIgnoringASCIICase(TenantID.headerName) { return true }
            return request.headers.fields.contains { named($0.name) }
        // libmicrohttpd joins the folded line into the name: `X-Catbird-Parallel-Idx` of `… s1` + ` x`.
        case let .foldedFieldLine(name) where name.lowercased().hasPrefix(TenantID.headerName.lowercased()): return true
        default: return request.headers.fields.contains { named($0.name) }
        }
    }

    /// The journal `problem` of a request refused for a request-target that is not text.
    static let nonTextTargetProblem =
        "the request-target held bytes that are not UTF-8, or a NUL byte: url writes each byte that is not UTF-8 as %XX "
        + "(a % the client sent is kept as sent), and a NUL as %00, where it ends: what followed a NUL is not kept "
        + "(libmicrohttpd has split it by then); refused with 400 before matching"

    /// The 400 for a parallel id no tenant can have (too long; for a control route also empty
    /// or sent twice): not journaled (no tenant to journal it in), but logged and counted (as
    /// the default tenant's) like every other answer, with CORS fields under `--cors`.
    /// - Parameter origin: the request's allowed origin (``CORS/allowedOrigin(of:control:)``).
    /// - Parameter control: whether `request` is a control request: counted and logged as
    ///   answered by `control`, as every `/catbird` route's answer is, with its reason at debug
    ///   (tester finding tester50c-F3: counted `none`, a dashboard's "matched no mock").
    func refusedParallelID(_ request: HTTPRequest, _ reason: String, origin: String?, control: Bool) -> HTTPAnswer {
        let refusal = HTTPAnswer.now(marked(APIError.badRequest(reason).response, refusing: request))
        return recorded(
            cors?.decorate(refusal, origin: origin) ?? refusal, request, answeredBy: control ? "control" : "none", tenant: .defaultTenant)
    }

    /// `response`, this server's refusal of `request` before it was matched or forwarded,
    /// marked `X-Catbird-Generated-By` in redirect and proxy modes when the request would have
    /// been forwarded (``Forwarding/refusal(_:of:)``); every such refusal goes through here.
    func marked(_ response: HTTPResponse, refusing request: HTTPRequest) -> HTTPResponse {
        upstream?.forwarding.refusal(response, of: request.target) ?? response
    }

    /// `error`'s answer to a request refused before it was read whole, with `Connection: close`,
    /// marked as Catbird's own when it would have been forwarded (``marked(_:refusing:)``).
    /// A request outside `/catbird` is journaled (when `journaled`) like any other, with an
    /// empty request body: the upload was discarded (its size, declared or received, is
    /// ``HTTPRequest/discardedBodySize``, journaled as `bodySize`), and the entry's `problem`
    /// says so when the request had a body (``unreadBodyProblem(of:)``). A parallel id that is not
    /// UTF-8 is refused on its own, not journaled (`journaled: false` above); only another
    /// refusal of a request that also carries such an id lands in the default tenant's journal,
    /// the id not being among the headers. With strict durability a journaled refusal leaves
    /// once its entry is committed, parked meanwhile like any strict answer
    /// (``Journal/answer(_:onceCommitted:sent:)``).
    /// - Parameter problem: the entry's `problem`; by default what ``unreadBodyProblem(of:)`` says.
    private func refused(_ request: HTTPRequest, _ error: APIError, journaled: Bool = true, problem: String? = nil) -> HTTPAnswer {
        var response = marked(error.response, refusing: request)
        response.headers.add(name: "Connection", value: "close")  // libmicrohttpd closes it after these
        if let cors {  // control routes' refusals too (docs/files.md#cors)
            response = cors.decorate(response, for: request, control: Self.isControlTarget(request.target))
        }
        var ticket: JournalTicket?
        noteUnanswered(request, status: error.status, why: error.reason, warning: true) { tenant in
            guard journaled else { return }
            let (sent, entryTicket) = serving.journal(
                request: request, response: response, responseHeadersJSON: nil, answeredBy: .unanswered, hit: nil, tenant: tenant,
                problem: problem ?? Self.unreadBodyProblem(of: request))
            response = sent
            ticket = entryTicket
        }
        guard durability == .strict, let ticket else { return .now(response) }
        return journal.answer(response, onceCommitted: ticket, otherwise: marked(Journal.notJournaled, refusing: request))
    }
}
