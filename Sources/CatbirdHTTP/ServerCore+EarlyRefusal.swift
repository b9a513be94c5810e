import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Refusals decided in the URI log callback, the only moment Catbird runs before libmicrohttpd
/// parses the query (docs/protocol.md#malformed-requests).
///
/// Right after that callback, libmicrohttpd 0.9.75 splits the query at `&` and keeps a record
/// per parameter in the connection memory (about 35 bytes each). When they do not fit, its error
/// path drops the request's buffered bytes and then waits for the rest of that request: nothing
/// is sent until the idle timeout (120 s).
/// - A query with too many parameters has its `&` past the limit overwritten in libmicrohttpd's
///   buffer (the target's text was copied first), so that it parses no more than the limit; the
///   request then goes on and is refused with its method and headers once they are read, like
///   any malformed request (it used to be refused here and journaled with an empty method:
///   tester finding try6a F12).
/// - A query on a target past ``maxTargetLength`` (whose bytes leave less memory for the records)
///   has every `&` overwritten in libmicrohttpd's buffer, so that it parses as one parameter; the
///   request goes on and is refused with its method and headers once they are read, as a long
///   target without a query is (tester finding tester40b-F4: it was refused here, before its
///   method was known, and a `HEAD` got the JSON body; journaled with `method` `""`).
/// Answers written on the socket itself (``refuseOnSocket(_:_:)``, and the watch's 408s) go out
/// without their body to a `HEAD` (RFC 9110 section 9.3.2).
extension ServerCore {
    /// The most query parameters a request-target may have: 200, well under the about 450 that
    /// fit the half of the 32 KiB connection memory left for them after the request line.
    static let maxQueryParameters = 200

    /// Keeps libmicrohttpd's query parsing within the connection memory, before it parses
    /// (the type's comment): notes whether the target has a query at all
    /// (``RequestContext/targetHasQuery``); a target past ``maxTargetLength`` (its problem
    /// already set) has every `&` of its query become `;` in `target`, libmicrohttpd's own
    /// buffer of the request line (0.9.75 passes it to the URI log callback in place, having
    /// found its `?` already), so that its query parses as one parameter; a query with more
    /// than ``maxQueryParameters`` gets the problem, and its `&` from the one that would start
    /// parameter 201 on become `;`. Either request is read on and refused with its method and
    /// headers. `context.target` keeps the text as sent.
    func limitQueryParsing(_ target: UnsafeBufferPointer<UInt8>, _ context: RequestContext) {
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return }
        context.targetHasQuery = true
        if context.problem == .targetTooLong(limit: maxTargetLength) {
            let writable = UnsafeMutableBufferPointer(mutating: target)
            for index in mark..<target.endIndex where writable[index] == UInt8(ascii: "&") {
                writable[index] = UInt8(ascii: ";")
            }
            return
        }
        var parameters = 1
        for index in (mark + 1)..<target.endIndex where target[index] == UInt8(ascii: "&") {
            parameters += 1
            if parameters > Self.maxQueryParameters {
                if context.problem == nil { context.problem = .tooManyQueryParameters(limit: Self.maxQueryParameters) }
                let writable = UnsafeMutableBufferPointer(mutating: target)
                for later in index..<target.endIndex where writable[later] == UInt8(ascii: "&") {
                    writable[later] = UInt8(ascii: ";")
                }
                return
            }
        }
    }

    /// Answers `context.problem` on the connection's socket (the handler's answer, at once or
    /// when its responder sends it, with `Connection: close`; without its body to a `HEAD`),
    /// then shuts the socket down: for answers libmicrohttpd cannot queue (a chunked body
    /// stalled on its chunk-size line; a head that left no room for an answer's head, tester
    /// finding tester40b-F2). Written only when the socket has nothing left to send (a client
    /// that pipelined this request without reading a large earlier response may still have that
    /// response queued): a small answer then goes out whole; else the connection closes
    /// without one.
    func refuseOnSocket(_ context: RequestContext, _ connection: OpaquePointer) {
        guard let problem = context.problem else { return }
        context.handled = true
        context.answeredEarly = true
        // Written here, not into libmicrohttpd's connection memory: any head fits.
        context.responseHeadRoom = .max
        let refusal = malformedRequestAnswer(context, problem)
        let socket = catbird_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let headOnly = context.method == "HEAD"
        switch refusal {
        case let .now(response):
            Self.send(response, andShutDown: socket, headOnly: headOnly)
        case .later, .soon:
            // Answered from another thread (e.g. once its journal entry is committed), on a
            // duplicate of the socket: it stays open whatever libmicrohttpd does with its own
            // descriptor meanwhile (it waits for the rest of the request and sends nothing),
            // and the connection ends when the answer has been written.
            // Counted until written, so that stop() waits for it (a responder always ends up
            // sending: one dropped unanswered sends its 500).
            let copy = dup(socket)
            guard copy >= 0 else {
                shutdown(socket, Int32(SHUT_RDWR))
                return
            }
            refusalsAnsweredLater.add(1, ordering: .sequentiallyConsistent)
            refusal.complete(through: HTTPResponder { [self] response in
                Self.send(response, andShutDown: copy, headOnly: headOnly)
                close(copy)
                refusalsAnsweredLater.subtract(1, ordering: .sequentiallyConsistent)
            })
        }
    }

    /// Refuses a chunked request whose body stalled on a chunk-size line longer than the `room`
    /// left in the connection memory (``ChunkLineWatch``), on its socket as
    /// ``refuseOnSocket(_:_:)`` does: 413, journaled with the body bytes received
    /// (discarded), the connection closed. Called on the watch's thread while libmicrohttpd
    /// reads nothing of the connection.
    func refuseStalledChunkLine(_ context: RequestContext, _ connection: OpaquePointer, room: Int) {
        context.problem = .chunkLineTooLong(limit: room)
        context.oversized = true
        refuseOnSocket(context, connection)
    }

    /// Writes `response` to `socket` when it has nothing else left to send, then shuts it down
    /// (also ``ConnectionWatch``'s 408 for a slow head or a stalled body); `headOnly`: the
    /// answer to a `HEAD`, its head with the body's `Content-Length` and no body.
    /// - Returns: the answer as written (``wireAnswer(of:)``; its body empty when `headOnly`), or
    ///   nil when it was not written whole (the socket still had bytes to send, or took fewer than all).
    @discardableResult
    static func send(_ response: HTTPResponse, andShutDown socket: Int32, headOnly: Bool = false) -> WrittenAnswer? {
        var answer = wireAnswer(of: response.stamped())
        if headOnly { answer = WrittenAnswer(status: answer.status, headers: answer.headers, body: []) }
        let bytes = wireBytes(of: answer)
        var written = -1
        if catbird_socket_unsent_bytes(socket) == 0 {
            written = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        shutdown(socket, Int32(SHUT_RDWR))
        return written == bytes.count ? answer : nil
    }

    /// The handler's answer to a request refused for `problem` before its body is read
    /// (``HTTPHandler/respondToMalformedRequest(_:problem:)``), now or later, with `Connection:
    /// close` when the handler did not say (``HTTPAnswer/closingConnection()``): the connection
    /// ends after it.
    func malformedRequestAnswer(_ context: RequestContext, _ problem: HTTPRequestProblem) -> HTTPAnswer {
        handler.respondToMalformedRequest(request(from: context), problem: problem).closingConnection()
    }

    /// `response` as it goes out on the wire: its status, its fields sent as given
    /// (``HTTPResponse/isSentAsGiven(_:)``) then `Content-Length`, and its body. Only for a
    /// ``HTTPResponse/Body/bytes(_:)`` body; another is sent without its body.
    static func wireAnswer(of response: HTTPResponse) -> WrittenAnswer {
        var body: [UInt8] = []
        if case let .bytes(bytes) = response.content { body = bytes }
        var fields = response.headers.fields.filter(HTTPResponse.isSentAsGiven)
        fields.append((name: "Content-Length", value: String(body.count)))
        return WrittenAnswer(status: response.status, headers: HTTPHeaders(fields), body: body)
    }

    /// `answer` as HTTP/1.1 bytes (RFC 9112 §4, §6): status line, its fields, the body.
    static func wireBytes(of answer: WrittenAnswer) -> [UInt8] {
        var head = "HTTP/1.1 \(answer.status) \(HTTPStatus.reasonPhrase(for: answer.status))\r\n"
        for field in answer.headers { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + answer.body
    }
}
