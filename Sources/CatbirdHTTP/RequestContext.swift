import CatbirdSupport
import CMicroHTTPD

/// Per-request state kept between libmicrohttpd's calls to the access handler.
///
/// Created in the URI-log callback (the first moment MHD knows of a request, when it still has
/// the raw request-target), passed back as `*con_cls`, released in the completion callback.
///
/// `@unchecked Sendable`: MHD calls back for one connection on one worker thread at a time, and a
/// suspended connection is not called at all until resumed. Another thread writes
/// `pendingResponse`, `heldReleased` or `clientGone` only while the connection is parked, under ``ParkedConnections``' lock,
/// before resuming it; the worker reads it after MHD calls it again. So no two threads access
/// the mutable fields at once.
///
/// Each field is `@exclusivity(unchecked)`: Swift checks each access to a class's stored
/// property at run time for an overlapping one (a thread-local access set; callgrind: 10 such
/// checks, about 1,400 instructions, in every request's worker). Every access here is a read,
/// an assignment or a mutating call made by the one thread that handles the connection at the
/// time (above), none of which hands a field `inout` to code that reaches the same context.
final class RequestContext: @unchecked Sendable {
    /// The request-target as text; one that is not (``HTTPRequestProblem/targetNotText``) with
    /// its bytes that are not UTF-8 written `%XX`, and, when a NUL byte is found inside it once
    /// the version is known (on the worker), cut there and ended with `%00`.
    @exclusivity(unchecked) var target: String
    /// Why the request is refused before the handler sees it (checked when its headers are
    /// complete), or nil.
    @exclusivity(unchecked) var problem: HTTPRequestProblem?
    @exclusivity(unchecked) var version = ""
    /// The answer ends the connection whatever it says (an HTTP/1.0 request with
    /// `Transfer-Encoding`, RFC 9112 section 6.1: set by the head's framing check).
    @exclusivity(unchecked) var closesAfterAnswer = false
    let receivedAt: ContinuousClock.Instant
    @exclusivity(unchecked) var connection: OpaquePointer?
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var clientAddress = ClientAddress.unknown
    @exclusivity(unchecked) var headers = HTTPHeaders()
    /// Where libmicrohttpd's copy of the raw request-target starts, and its length up to the
    /// first NUL: a longer span before the version means a NUL byte inside the target.
    @exclusivity(unchecked) var rawTargetStart = 0
    @exclusivity(unchecked) var rawTargetLength = 0
    /// Where the request line and header section lie in libmicrohttpd's read buffer while the
    /// headers are collected (0.9.75 parses them in place): a field name outside it was made by
    /// joining a folded line (``HTTPRequestProblem/foldedFieldLine``).
    @exclusivity(unchecked) var rawHeadStart = 0
    @exclusivity(unchecked) var rawHeadEnd = 0
    /// Where the last C string libmicrohttpd handed over ends (the version, then each field
    /// value), and the field it was (nil: the version): the bytes after it up to the next one
    /// tell whether a NUL byte cut it (``ServerCore/nulProblem(key:name:value:valueLength:_:)``).
    /// 0: not known, nothing is checked.
    @exclusivity(unchecked) var rawLineEnd = 0
    @exclusivity(unchecked) var rawLineField: String?
    /// The first field line refused while the headers are collected (left out of ``headers``).
    @exclusivity(unchecked) var fieldProblem: HTTPRequestProblem?
    @exclusivity(unchecked) var body: [UInt8] = []
    /// The bytes of connection memory left for the response's head (``ResponseHeadRoom``),
    /// known once the header section is accepted.
    @exclusivity(unchecked) var responseHeadRoom = Int.max
    /// Whether the raw target has a `?` (seen when it is checked before libmicrohttpd parses the
    /// query, ``ServerCore/mustRefuseBeforeQueryParsing(_:_:)``): only then has libmicrohttpd
    /// query parameters to count in ``responseHeadRoom``.
    @exclusivity(unchecked) var targetHasQuery = false
    /// Whether the raw target holds a space or a control byte (seen in the URI log callback's
    /// one scan of it, ``String/requestTarget(_:)``): refused with
    /// ``HTTPRequestProblem/targetSpaceOrControl`` (``ServerCore/framingProblem(_:transferEncodingAsRead:)``).
    @exclusivity(unchecked) var targetHasSpaceOrControl = false
    /// The length of the first `Cookie` field's value, the one libmicrohttpd copies and parses
    /// into cookie pairs (seen as the fields are collected); nil: no `Cookie` field.
    @exclusivity(unchecked) var cookieLength: Int?
    @exclusivity(unchecked) var started = false
    /// A handler method that answers (and journals) the request was called: the request is
    /// the handler's; else the completion callback tells it how the request ended
    /// (``HTTPHandler/requestEndedUnanswered(_:ending:)``).
    @exclusivity(unchecked) var handled = false
    /// Whether the request's head left too little room for any answer's head
    /// (``ResponseHeadRoom/leastToAnswer``): closed unanswered at its head.
    @exclusivity(unchecked) var noRoomToAnswer = false
    /// Answered from the URI log callback, before libmicrohttpd parsed the query
    /// (``ServerCore/refuseBeforeQueryParsing(_:_:)``): the access handler closes the connection.
    @exclusivity(unchecked) var answeredEarly = false
    @exclusivity(unchecked) var oversized = false
    /// Its chunked body is watched by ``ServerCore/chunkLines`` (from its head to its end; the
    /// worker's field).
    @exclusivity(unchecked) var watchesChunkLines = false
    /// Bytes of ``ServerCore/bodyBudget`` this request's body holds (what it grew to as its
    /// bytes arrived), given back when it completes.
    @exclusivity(unchecked) var bodyCharge = 0
    /// The body's declared `Content-Length`, when it has one (its budget share grows up to it).
    @exclusivity(unchecked) var declaredBodySize: Int?
    /// Why its body was refused, when the budget had no room for it (with ``oversized``).
    @exclusivity(unchecked) var overBudget: HTTPRequestProblem?
    /// Who holds its body's bytes of the budget (``ServerCore/budgetHolderHeader``'s value),
    /// known from its body's first take on; nil before, or when no header names holders.
    @exclusivity(unchecked) var budgetHolder: ByteBudget.Holder?
    /// Its connection's record in ``ServerCore/watch`` (its socket context, which outlives the
    /// request), or nil.
    @exclusivity(unchecked) var watched: Unmanaged<ConnectionWatch.Connection>?
    /// The budget share of the response sent (``HTTPResponse/budgetShare``), released with
    /// the context once the request completed.
    @exclusivity(unchecked) var answerShare: ByteBudget.Share?
    /// The response's ``HTTPResponse/heldWhileSent``, released with the context once the
    /// request completed.
    @exclusivity(unchecked) var answerHeld: (any AnyObject & Sendable)?
    /// The ``HTTPResponse/completionTag`` of the response queued, 0 when none: told to the
    /// handler when the request completes without the whole answer sent.
    @exclusivity(unchecked) var answerTag: UInt64 = 0
    /// Set when the answer queued was a file whose body ended early (``HTTPAnswerCutShort/fileEndedEarly(sent:promised:errorNumber:)``),
    /// by its stream on the connection's worker thread, read there when the request completes.
    @exclusivity(unchecked) var fileEndedEarly: HTTPAnswerCutShort?
    /// The body's size as far as known once ``oversized``: the declared `Content-Length` of a
    /// body refused unread, else every body byte received (kept or discarded).
    @exclusivity(unchecked) var bodySizeSeen = 0
    /// The answer left by a responder (or by shutdown) for the access handler to queue on resume.
    @exclusivity(unchecked) var pendingResponse: HTTPResponse?
    /// The held answer being waited for (``ParkedConnections/hold(_:_:_:)``), or nil; sent
    /// (``heldReleased`` picks which of its responses) when the connection is taken back.
    @exclusivity(unchecked) var held: HTTPHeldAnswer?
    /// What ``HTTPHandler/bodyWillArrive(_:)`` asked to be called when the request completes.
    @exclusivity(unchecked) var whenCompleted: (@Sendable () -> Void)?
    /// What the held answer's release picked: its response (true) or its other one (false).
    /// Written by the releasing thread while parked, under ``ParkedConnections``' lock.
    @exclusivity(unchecked) var heldReleased = false
    /// The delayed response being waited for (its ``HTTPResponse/whenDelayEnds`` is called on
    /// resume), or nil.
    @exclusivity(unchecked) var delayed: HTTPResponse?
    /// Whether the answer was parked once because libmicrohttpd refused to queue it after a
    /// `100 Continue` it sent to a bodiless request (``ServerCore``'s send): never parked again,
    /// so a second refusal closes the connection instead of parking it for ever.
    @exclusivity(unchecked) var parkedToQueue = false
    /// Set (while parked, under ``ParkedConnections``' lock) when the client hung up: on resume
    /// the connection is closed.
    @exclusivity(unchecked) var clientGone = false
    /// The request's entry in ``ParkedConnections`` while it is parked; nil once resumed (set
    /// and cleared under the registry's lock, read by the worker only when not parked).
    @exclusivity(unchecked) var parkedTicket: UInt64?
    /// Set by the worker when it parks the request with the parking idle timeout
    /// (``ParkedConnections`` `suspend`), cleared when it takes the connection back.
    @exclusivity(unchecked) var parkedTimeout = false

    init(target: String, problem: HTTPRequestProblem? = nil) {
        self.target = target
        self.problem = problem
        self.receivedAt = .now
    }
}
