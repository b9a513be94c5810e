import CMicroHTTPD

/// Per-request state kept between libmicrohttpd's calls to the access handler.
///
/// Created in the URI-log callback (the first moment MHD knows of a request, when it still has
/// the raw request-target), passed back as `*con_cls`, released in the completion callback.
///
/// `@unchecked Sendable`: MHD calls back for one connection on one worker thread at a time, and a
/// suspended connection is not called at all until resumed; the delay timer only touches
/// `connection` (to resume it) after the worker has finished writing `pendingResponse`. So no two
/// threads access the mutable fields at once.
final class RequestContext: @unchecked Sendable {
    let target: String
    let receivedAt: ContinuousClock.Instant
    var connection: OpaquePointer?
    var method = ""
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    var started = false
    var oversized = false
    var pendingResponse: HTTPResponse?

    init(target: String) {
        self.target = target
        self.receivedAt = .now
    }
}
