import CMicroHTTPD

/// Per-request state kept between libmicrohttpd's calls to the access handler.
///
/// Created in the URI-log callback (the first moment MHD knows of a request, when it still has
/// the raw request-target), passed back as `*con_cls`, released in the completion callback.
///
/// `@unchecked Sendable`: MHD calls back for one connection on one worker thread at a time, and a
/// suspended connection is not called at all until resumed. Another thread writes
/// `pendingResponse` only while the connection is parked, under ``ParkedConnections``' lock,
/// before resuming it; the worker reads it after MHD calls it again. So no two threads access
/// the mutable fields at once.
final class RequestContext: @unchecked Sendable {
    let target: String
    let receivedAt: ContinuousClock.Instant
    var connection: OpaquePointer?
    var method = ""
    var clientAddress = ""
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var started = false
    var oversized = false
    /// The answer left by a responder (or by shutdown) for the access handler to queue on resume.
    var pendingResponse: HTTPResponse?
    /// The request's entry in ``ParkedConnections`` while (or since) it was parked.
    var parkedTicket: UInt64?

    init(target: String) {
        self.target = target
        self.receivedAt = .now
    }
}
