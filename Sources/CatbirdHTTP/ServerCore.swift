import CMicroHTTPD
import CatbirdSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The state libmicrohttpd's C callbacks reach through their `cls` pointer, and the callbacks.
///
/// MHD calls the access handler several times per request: first with no upload data (headers
/// are complete), then once per chunk of body, then with size 0 when the body is complete; the
/// response is queued on that last call.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let maxBodySize: Int
    let parked: ParkedConnections
    /// Streamed answers waiting, suspended, for their next bytes (``StreamPauses``).
    let streamPauses = StreamPauses()
    /// Chunked bodies watched for a chunk-size line libmicrohttpd cannot read (``ChunkLineWatch``).
    let chunkLines = ChunkLineWatch()
    /// Requests started and not yet completed.
    let inFlight = Atomic<Int>(0)
    /// Refusals answered later on a duplicate of their socket, outside ``ParkedConnections``
    /// (``refuseBeforeQueryParsing(_:_:)``), whose answer has not been written yet:
    /// ``HTTPServer/stop()`` waits for them as for parked waits of moments.
    let refusalsAnsweredLater = Atomic<Int>(0)
    /// Set by ``HTTPServer/stop()`` once its grace second is over while answers still wait for
    /// moments: a request that arrives then (on a kept-alive connection) gets the 503 of
    /// ``ParkedConnections/stoppingResponse`` without reaching the handler, so it is neither
    /// journaled nor waited for, and a stream of new requests cannot hold the stop up.
    let refusingRequests = Atomic<Bool>(false)
    /// Bytes reserved for a body up front at most, whatever its Content-Length claims (1 MiB):
    /// a client may declare up to `maxBodySize` and send nothing.
    static let maxBodyReservation = 1 << 20
    /// The longest request-target answered by the handler; longer ones get 414. A quarter of
    /// the connection memory (``HTTPServer/Configuration/connectionMemoryLimit``), so that
    /// libmicrohttpd's own limit is never the one a request that fits its memory meets first
    /// (docs/protocol.md#malformed-requests).
    let maxTargetLength: Int
    /// The largest request line plus header section answered by the handler; larger ones get
    /// 431. The connection memory less 4 KiB (at least half of it), kept for the response's
    /// header section (docs/protocol.md#malformed-requests).
    let maxHeadSize: Int
    /// Bytes of memory per connection (``HTTPServer/Configuration/connectionMemoryLimit``).
    let connectionMemory: Int
    /// The bytes of request bodies held at once, all connections together
    /// (``HTTPServer/Configuration/bodyBudget``; ServerCore+BodyBudget.swift).
    let bodyBudget: ByteBudget
    /// The header naming who holds a body's bytes of ``bodyBudget``
    /// (``HTTPServer/Configuration/budgetHolderHeader``), or nil.
    let budgetHolderHeader: String?
    /// The head deadline and the room made at the connection limit (``ConnectionWatch``).
    let watch: ConnectionWatch

    init(
        handler: any HTTPHandler, maxBodySize: Int, connectionMemory: Int, bodyBudget: ByteBudget, budgetHolderHeader: String?,
        headTimeout: Duration?, idleTimeoutSeconds: Int, connectionCounts: HTTPConnectionCounts
    ) {
        self.handler = handler
        self.connectionMemory = connectionMemory
        self.maxBodySize = maxBodySize
        self.bodyBudget = bodyBudget
        self.budgetHolderHeader = budgetHolderHeader
        parked = ParkedConnections(stoppingResponse: handler.stoppingResponse, idleTimeoutSeconds: idleTimeoutSeconds)
        // A trickled request line the watch closed has no request: the handler is told of one
        // with what is known, no method, no target (``HTTPRequestEnding/requestLineTimedOut(limit:written:)``).
        watch = ConnectionWatch(
            headTimeout: headTimeout, slowHeadAnswer: handler.respondToSlowHead(timeout: headTimeout ?? .zero),
            stalledBodyAnswer: handler.respondToStalledBody(timeout: headTimeout ?? .zero),
            uploadOverShareAnswer: handler.respondToUploadClosedOverShare(),
            counts: connectionCounts,
            requestLineTimedOut: { [handler] since, written in
                handler.requestEndedUnanswered(
                    HTTPRequest(method: "", target: "", receivedAt: since),
                    ending: .requestLineTimedOut(limit: headTimeout ?? .zero, written: written))
            })
        maxTargetLength = connectionMemory / 4
        maxHeadSize = max(connectionMemory / 2, connectionMemory - 4096)
    }

    /// MHD_OPTION_URI_LOG_CALLBACK: the raw request-target, before MHD splits off and unescapes
    /// the query. Creates the request's context, which MHD hands back as `*con_cls`.
    static let requestStarted: catbird_mhd_uri_log_callback = { cls, uri, connection in
        let core = Unmanaged<ServerCore>.fromOpaque(cls!).takeUnretainedValue()
        core.inFlight.add(1, ordering: .relaxed)
        let context: RequestContext
        if let uri {
            let length = strlen(uri)
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(uri).assumingMemoryBound(to: UInt8.self), count: length)
            if length > core.maxTargetLength {
                context = RequestContext(target: String(decoding: bytes, as: UTF8.self), problem: .targetTooLong(limit: core.maxTargetLength))
            } else {
                let (text, hasSpaceOrControl) = String.requestTarget(bytes)
                if let text {
                    context = RequestContext(target: text)
                    context.targetHasSpaceOrControl = hasSpaceOrControl
                } else {
                    context = RequestContext(target: String.percentEncodingNonText(bytes), problem: .targetNotText)
                }
            }
            context.rawTargetStart = Int(bitPattern: uri)
            context.rawTargetLength = length
            core.limitQueryParsing(bytes, context)
        } else {
            context = RequestContext(target: "")
        }
        if let connection, let watched = ConnectionWatch.record(of: connection) {
            context.watched = watched
            watched._withUnsafeGuaranteedRef { $0.requestStarted() }
        }
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// MHD_OPTION_NOTIFY_COMPLETED: tells the handler how a request it never answered ended
    /// (``unansweredEnding(_:_:)``), or that an answer it tagged did not go out whole
    /// (``HTTPHandler/answerCutShort(_:tag:ending:)``), and a held answer's observer that nothing was sent when it
    /// never was, then releases the request's context.
    static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, contextSlot, termination in
        guard let pointer = contextSlot?.pointee else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls!).takeUnretainedValue()
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
        // First: a stalled-body refusal the watch is making meanwhile (it sets `handled` and
        // journals the 413 under its lock) ends before `handled` is read here.
        if context.watchesChunkLines { _ = core.chunkLines.forget(context) }
        let closedAs = context.watched?._withUnsafeGuaranteedRef { $0.requestEnded(holder: core.holderKey(of: context)) } ?? ConnectionWatch.State.idle
        // Closed for a trickled request line just as the line ended: told when the connection
        // closes (``ConnectionWatch/closed(_:)``), not here as well.
        if !context.handled, closedAs != ConnectionWatch.State.lineTimedOut, let connection {
            // The watch's 408, as it went out, when the watch closed the connection.
            let written = closedAs == ConnectionWatch.State.idle ? nil : context.watched.flatMap { core.watch.writtenAnswer(of: $0) }
            let ending: HTTPRequestEnding = switch closedAs {
            case ConnectionWatch.State.headTimedOut: .headTimedOut(limit: core.watch.headTimeout ?? .zero, written: written)
            case ConnectionWatch.State.bodyStalled: .bodyStalled(limit: core.watch.headTimeout ?? .zero, written: written)
            case ConnectionWatch.State.bodyClosedForRoom: .bodyClosedForRoom(written: written)
            case ConnectionWatch.State.headClosedForRoom: .headClosedForRoom(written: written)
            case ConnectionWatch.State.uploadClosedOverShare: .uploadClosedOverShare(written: written)
            case ConnectionWatch.State.idleClosedForRoom: .idleClosedForRoom
            default: context.noRoomToAnswer
                ? .noRoomToAnswer(room: context.responseHeadRoom) : unansweredEnding(catbird_mhd_response_status(connection), termination)
            }
            core.handler.requestEndedUnanswered(core.request(from: context), ending: ending)
        } else if context.answerTag != 0, closedAs == ConnectionWatch.State.answerUnread {
            core.handler.answerCutShort(
                core.request(from: context), tag: context.answerTag,
                ending: .unread(limit: core.watch.headTimeout ?? .zero, heldBudget: context.answerShare != nil))
        } else if context.answerTag != 0, closedAs == ConnectionWatch.State.answerClosedForRoom {
            core.handler.answerCutShort(
                core.request(from: context), tag: context.answerTag, ending: .unreadClosedForRoom(limit: ConnectionWatch.unreadAnswerRoomAge))
        } else if context.answerTag != 0, let ending = context.fileEndedEarly {
            // Ended as complete by libmicrohttpd: the stream shut the socket and ended the body.
            core.handler.answerCutShort(core.request(from: context), tag: context.answerTag, ending: ending)
        } else if context.answerTag != 0, termination.rawValue != 0 {  // not MHD_REQUEST_TERMINATED_COMPLETED_OK
            core.handler.answerCutShort(core.request(from: context), tag: context.answerTag, ending: cutShortEnding(termination))
        }
        core.giveBackBody(context)
        core.parked.forget(context)
        if let whenCompleted = context.whenCompleted {
            context.whenCompleted = nil
            whenCompleted()
        }
        if let held = context.held {
            // Released but never sent: its client hung up while it waited, and libmicrohttpd,
            // taking the connection back, read the end of the stream before calling us again.
            context.held = nil
            _ = held.delivering(.nothingSent)
        }
        if let delayed = context.delayed {
            // Ended without the access handler seeing the delay end: libmicrohttpd noticed the
            // client go itself (it read the end of the stream before the connection was parked).
            context.delayed = nil
            _ = delayed.whenDelayEnds?(.clientLeft(waited: ContinuousClock.now - context.receivedAt))
        }
        Unmanaged<RequestContext>.fromOpaque(pointer).release()
        contextSlot?.pointee = nil
        core.inFlight.subtract(1, ordering: .releasing)
    }

    /// How a request no handler method answered ended: by the termination code when the
    /// connection timed out or the server stopped (a page libmicrohttpd queued may then not have
    /// gone out), else by the status libmicrohttpd queued (its own error page; 0: none).
    static func unansweredEnding(_ status: UInt32, _ termination: MHD_RequestTerminationCode) -> HTTPRequestEnding {
        switch termination.rawValue {
        case 2: return .timedOut  // MHD_REQUEST_TERMINATED_TIMEOUT_REACHED
        case 3: return .serverStopped  // MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN
        default:  // COMPLETED_OK, WITH_ERROR, READ_ERROR, CLIENT_ABORT
            return status != 0 ? .refusedByLibrary(status: Int(status)) : .clientLeft
        }
    }

    /// How an answer that was queued but not sent whole ended, by the termination code of its
    /// completion notice: the idle timeout, a stopping server, else the client (libmicrohttpd
    /// 0.9.75 reports a failed write as `WITH_ERROR`, a hang-up it read as `CLIENT_ABORT`).
    static func cutShortEnding(_ termination: MHD_RequestTerminationCode) -> HTTPAnswerCutShort {
        switch termination.rawValue {
        case 2: .timedOut  // MHD_REQUEST_TERMINATED_TIMEOUT_REACHED
        case 3: .serverStopped  // MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN
        default: .clientLeft  // WITH_ERROR, READ_ERROR, CLIENT_ABORT
        }
    }

    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, uploadData, uploadSize, contextSlot in
        guard let cls, let connection, let uploadSize, let pointer = contextSlot?.pointee else { return .NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
        if !context.started, let version {
            context.version = String(cString: version)
            context.rawLineEnd = Int(bitPattern: version) + strlen(version)
            // libmicrohttpd ends the target with a NUL where the space before the version was
            // (0.9.75 keeps the request line in place): a span longer than the target's C
            // string means a NUL byte inside it, which would otherwise cut the target short.
            let span = Int(bitPattern: version) - 1 - context.rawTargetStart
            if context.problem == nil || context.problem == .targetNotText, context.rawTargetStart != 0,
               span > context.rawTargetLength, span <= core.maxTargetLength
            {
                context.problem = .targetNotText
                // What came before the NUL, as read when the request started, then `%00`; not the
                // bytes after it: by now libmicrohttpd has split the query in place (`?`, `&`, `=`
                // made NULs, escapes decoded), and a target read from here was garbled (tester
                // finding tester39a-F7: `/n1\0?x=1&y=2` journaled `/n1%00%00x%001%00y%002`).
                context.target += "%00"
            }
        }
        return core.handle(context, connection, method, uploadData, uploadSize)
    }

    /// Reads `connection`'s header fields into `context` and returns how many there are.
    /// Counted first (no iterator: libmicrohttpd only counts) so the fields are stored in one
    /// allocation rather than regrown as each one is added.
    private func collectHeaders(_ context: RequestContext, _ connection: OpaquePointer) -> Int {
        let fieldCount = Int(MHD_get_connection_values(connection, .HEADER_KIND, nil, nil))
        context.headers.reserveCapacity(fieldCount)
        _ = MHD_get_connection_values(connection, .HEADER_KIND, ServerCore.collectHeader, Unmanaged.passUnretained(context).toOpaque())
        return fieldCount
    }

    private static let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
        guard let cls, let key else { return .YES }
        let context = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
        let nameBytes = UnsafeBufferPointer(start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), count: strlen(key))
        if nameBytes.count == 6, context.cookieLength == nil, isCookie(nameBytes) {
            context.cookieLength = value.map { strlen($0) } ?? 0  // the first, as libmicrohttpd's lookup finds it
        }
        // A token is ASCII (``tokenFieldName(_:)``); anything else as before, repaired.
        let isToken = HTTPToken.isToken(nameBytes)
        let name = isToken ? ServerCore.tokenFieldName(nameBytes) : String(cString: key)
        if let problem = fieldLineProblem(name: name, isToken: isToken, at: Int(bitPattern: key), context) {
            // Left out: the journal never holds a field name that was not sent as one.
            if context.fieldProblem == nil { context.fieldProblem = problem }
            return .YES
        }
        let valueLength = value.map { strlen($0) } ?? 0
        if context.fieldProblem == nil,
           let (problem, skip) = nulProblem(key: key, name: name, value: value, valueLength: valueLength, context)
        {
            context.fieldProblem = problem
            if skip { return .YES }
        }
        guard let value else {
            context.headers.add(name: name, value: "")
            return .YES
        }
        if valueLength > 0, memchr(value, 0x0D, valueLength) != nil {
            // Left out as well: a bare CR (libmicrohttpd 0.9.75 ends lines at LF and takes only
            // the CR right before it) could end the line for whoever this value is forwarded to.
            if context.fieldProblem == nil { context.fieldProblem = .bareCarriageReturn(name: name) }
            return .YES
        }
        guard let text = trimmedFieldValue(value, length: valueLength) else {
            // Left out too: the journal holds header values as text, and could only hold this
            // one altered (docs/protocol.md#malformed-requests).
            if context.fieldProblem == nil { context.fieldProblem = .fieldValueNotUTF8(name: name) }
            return .YES
        }
        context.headers.add(name: name, value: text)
        return .YES
    }

    /// Whether a 6-byte field name is `Cookie` in any case, as libmicrohttpd compares it.
    private static func isCookie(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        // Setting bit 5 lowers an ASCII capital and changes no other byte into a lowercase letter.
        name[0] | 0x20 == UInt8(ascii: "c") && name[1] | 0x20 == UInt8(ascii: "o") && name[2] | 0x20 == UInt8(ascii: "o")
            && name[3] | 0x20 == UInt8(ascii: "k") && name[4] | 0x20 == UInt8(ascii: "i") && name[5] | 0x20 == UInt8(ascii: "e")
    }

    /// Why a field line libmicrohttpd 0.9.75 accepted must be refused: its name lies outside the
    /// header section in the read buffer (a folded line joined into the name), or is not a token.
    /// - Parameter isToken: whether the name's bytes are a token (``HTTPToken/isToken(_:)``).
    private static func fieldLineProblem(name: String, isToken: Bool, at address: Int, _ context: RequestContext) -> HTTPRequestProblem? {
        if context.rawHeadEnd > 0, !(context.rawHeadStart..<context.rawHeadEnd).contains(address) { return .foldedFieldLine(name: name) }
        return isToken ? nil : .fieldNameNotToken(name: name)
    }

    /// The method as text, and its problem when it is not a token (RFC 9110 §9.1): the text is
    /// the bytes as sent when they are UTF-8, else empty (never a repaired spelling).
    private static func methodText(_ method: UnsafePointer<CChar>) -> (String, HTTPRequestProblem?) {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(method).assumingMemoryBound(to: UInt8.self), count: strlen(method))
        if HTTPToken.isToken(bytes) { return (String(decoding: bytes, as: UTF8.self), nil) }
        guard let text = String(requestBytes: bytes) else { return ("", .methodNotToken(isText: false)) }
        return (text, .methodNotToken(isText: true))
    }

    /// A field value without the optional whitespace around it (RFC 9110 §5.5): libmicrohttpd
    /// strips the leading spaces but keeps trailing ones. Nil when its bytes are not UTF-8.
    private static func trimmedFieldValue(_ value: UnsafePointer<CChar>, length: Int) -> String? {
        var length = length
        while length > 0, value[length - 1] == 0x20 || value[length - 1] == 0x09 { length -= 1 }
        var start = 0
        while start < length, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        return value.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(requestBytes: UnsafeBufferPointer(start: bytes + start, count: length - start))
        }
    }

    private func handle(
        _ context: RequestContext, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if context.answeredEarly { return .NO }  // answered on its socket (refuseOnSocket): close
        if context.parkedTimeout { parked.takenBack(connection, context) }  // resumed: its own idle timeout back
        if context.clientGone {  // resumed: the client hung up while parked
            context.clientGone = false
            if let delayed = context.delayed {
                context.delayed = nil
                _ = delayed.whenDelayEnds?(.clientLeft(waited: ContinuousClock.now - context.receivedAt))
            }
            return .NO  // MHD closes the connection; nothing is sent
        }
        if let held = context.held {  // resumed: a held answer released, or the server's answer first
            context.held = nil
            let instead = context.pendingResponse
            context.pendingResponse = nil
            let delivery = instead.map(HTTPDelivery.sentInstead) ?? .sent(context.heldReleased ? held.response : held.otherwise)
            return send(held.delivering(delivery) ?? delivery.response!, context, connection)
        }
        if let pending = context.pendingResponse {  // resumed: answered later, or delay over
            context.pendingResponse = nil
            if let delayed = context.delayed {
                context.delayed = nil
                if let instead = delayed.whenDelayEnds?(.sent) { return answer(instead, context, connection) }
            }
            return send(pending, context, connection)
        }
        if !context.started {
            // Timed out by the watch meanwhile: its 408 is written on the socket; close.
            if let watched = context.watched, !watched._withUnsafeGuaranteedRef({ $0.headCompleted() }) {
                // Closed for room as it arrived on its idle connection: its head, whole here, is
                // read for its journal row (its method, its tenant), not answered (tester finding
                // tester70a-F2: such rows went to the default tenant, without a method).
                if watched._withUnsafeGuaranteedRef({ $0.phase.load(ordering: .relaxed) & ConnectionWatch.State.mask })
                    == ConnectionWatch.State.idleClosedForRoom
                {
                    if let method { context.method = Self.methodText(method).0 }
                    _ = collectHeaders(context, connection)
                }
                return .NO
            }
            context.started = true
            context.clientAddress = Self.clientAddress(connection)
            let headSize = catbird_mhd_request_header_size(connection)
            if let method {
                // libmicrohttpd 0.9.75 keeps the request line and header section in place,
                // starting with the method (see fieldLineProblem).
                context.rawHeadStart = Int(bitPattern: method)
                context.rawHeadEnd = headSize > 0 ? context.rawHeadStart + headSize : 0
                let (text, problem) = Self.methodText(method)
                context.method = text
                if context.problem == nil { context.problem = problem }
                if context.problem == nil, context.rawTargetStart != 0,
                   !Self.methodEndsAtSpace(method, targetStart: context.rawTargetStart)
                {
                    context.problem = .nulByte(field: nil)
                }
            }
            let fieldCount = collectHeaders(context, connection)
            context.responseHeadRoom = responseHeadRoom(context, connection, headSize: headSize, fieldCount: fieldCount)
            if context.responseHeadRoom < ResponseHeadRoom.leastToAnswer {
                // Not even an error's head would fit libmicrohttpd's memory (tester21a-F8). A
                // request already refused (a target over 8 KiB: tester finding tester40b-F2, a
                // 32,340-byte path got nothing) gets its answer written on the socket; else it
                // is closed now, unanswered, told to the handler when it completes (requestCompleted).
                if context.problem != nil {
                    refuseOnSocket(context, connection)
                    return .NO
                }
                context.noRoomToAnswer = true
                return .NO
            }
            if context.problem == nil, headSize > maxHeadSize {
                context.problem = .headTooLarge(limit: maxHeadSize)
            }
            if context.fieldProblem == nil { context.fieldProblem = Self.checkHeadEnd(context) }
            if context.problem == nil { context.problem = context.fieldProblem }
            if context.problem == nil {
                context.problem = Self.framingProblem(context) {
                    MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding").map { String(cString: $0) }
                }
            }
            if let problem = context.problem {
                // Answered before any body is read (parked meanwhile if answered later: MHD then
                // calls this first step again, which sends the pending response); `Connection:
                // close` ends the connection after.
                context.oversized = true
                context.handled = true
                return answer(malformedRequestAnswer(context, problem), context, connection)
            }
            if Self.waitsForContinue(context), let early = handler.respondBeforeBody(request(from: context)) {
                // Queued before libmicrohttpd writes its `100 Continue` (it sends one only while
                // no response is queued), which then discards the body; closes after.
                context.oversized = true
                context.handled = true
                return answer(early.closingConnection(), context, connection)
            }
            if let declared = Self.declaredBodySize(context) {
                if declared > maxBodySize {
                    // Answer before reading the body; MHD closes the connection afterwards.
                    context.oversized = true
                    context.bodySizeSeen = declared
                    context.handled = true
                    let refusal = handler.respondToOversizedBody(request(from: context), limit: maxBodySize)
                    return answer(refusal.closingConnection(), context, connection)
                }
                guard hasRoomForBody(declared, context) else {
                    // The budget has no room for it: answered before reading it, as above.
                    context.oversized = true
                    context.bodySizeSeen = declared
                    context.handled = true
                    return answer(
                        malformedRequestAnswer(context, budgetRefusal(holding: declared, context, whileArriving: false)), context, connection)
                }
                // Reserve on the client's word only up to 1 MiB; a larger body grows as it arrives.
                context.body.reserveCapacity(min(declared, ServerCore.maxBodyReservation))
                context.declaredBodySize = declared
                if declared > 0 {
                    context.watched?._withUnsafeGuaranteedRef { $0.bodyStarted(holder: uploadHolder(of: context), head: context.method == "HEAD") }
                    context.whenCompleted = handler.bodyWillArrive(request(from: context))
                }
            } else if context.headers.first("Transfer-Encoding") != nil {
                // Chunked (any other coding was refused above): its chunk-size lines may not fit.
                context.whenCompleted = handler.bodyWillArrive(request(from: context))
                context.watchesChunkLines = true
                context.watched?._withUnsafeGuaranteedRef { $0.bodyStarted(holder: uploadHolder(of: context), head: context.method == "HEAD") }
                let room = connectionMemory - headSize
                chunkLines.watch(context, connection) { [unowned self] context, connection in
                    refuseStalledChunkLine(context, connection, room: room)
                }
            }
            return .YES
        }
        let size = uploadSize.pointee
        if size > 0 {
            let addBody = {
                context.bodySizeSeen += size
                if !context.oversized, let uploadData {
                    let total = context.body.count + size
                    if total > self.maxBodySize || (total > context.bodyCharge && !self.growBody(to: total, context)) {
                        context.overBudget = total <= self.maxBodySize ? self.budgetRefusal(holding: total, context, whileArriving: true) : nil
                        context.oversized = true
                        context.body = []
                        self.giveBackBody(context)
                    } else {
                        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                            context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                        }
                    }
                }
            }
            if context.watchesChunkLines {
                guard chunkLines.bodyArrived(context, addBody) else { return .NO }  // refused as stalled meanwhile
            } else {
                addBody()
            }
            uploadSize.pointee = 0
            return .YES
        }
        if context.watchesChunkLines {
            context.watchesChunkLines = false
            guard chunkLines.forget(context) else { return .NO }  // refused as stalled meanwhile
        }
        // Closed by the watch meanwhile, its body stalled: its 408 is written on the socket.
        if let watched = context.watched, !watched._withUnsafeGuaranteedRef({ $0.bodyEnded() }) { return .NO }
        if refusingRequests.load(ordering: .relaxed) {
            context.handled = true  // nothing to journal: the handler never saw it
            return refuseWhileStopping(context, connection)
        }
        let request = request(from: context)
        context.handled = true
        if let refusal = context.overBudget {
            return answer(malformedRequestAnswer(context, refusal), context, connection)
        }
        if context.oversized {
            return answer(handler.respondToOversizedBody(request, limit: maxBodySize).closingConnection(), context, connection)
        }
        return answer(handler.respond(to: request), context, connection)
    }

    /// Sends `answer`'s response, or parks the connection: hands its responder to a later
    /// answer's start closure, or holds an answer known now until its release (503 at once
    /// when the server is stopping).
    private func answer(_ answer: HTTPAnswer, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        switch answer {
        case let .now(response):
            return send(response, context, connection)
        case let .later(watching, start):
            let atShutdown = parked.stoppingResponse
            guard let responder = parked.park(connection, context, atShutdown: atShutdown, watching: watching) else {
                return refuseWhileStopping(context, connection)
            }
            start(responder)
            return .YES
        case let .soon(held):  // shutdown waits for its answer
            if parked.isStopping { return sendWhenReleased(held, context, connection) }
            return parked.hold(connection, context, held) ? .YES : sendWhenReleased(held, context, connection)
        }
    }

    /// A held answer that comes while the server stops: its release is waited for here, on the
    /// worker (the stop joins the workers after their last answers), at most
    /// ``HTTPServer/momentsAtShutdown``, and what it picks is sent. Parked instead, it could be
    /// answered by the stop's last step (``ParkedConnections/resumeAll()``) with the 503 of a
    /// stopping server, which the handler, whose answer it replaces, is told only after it acted
    /// on its own (tester finding T19A-F1: under `--durability strict`, a SIGTERM under load gave
    /// each busy connection's last request that 503 while its journal row said 200 or 404 and
    /// its mock's hit and `limit` unit were spent). Past the wait the 503 goes out, its
    /// observer told (``HTTPDelivery/sentInstead(_:)``).
    private func sendWhenReleased(_ held: HTTPHeldAnswer, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        let latch = HeldReleaseLatch()
        held.start { send in latch.release(send) }
        let delivery: HTTPDelivery = if let send = latch.wait(for: HTTPServer.momentsAtShutdown) {
            .sent(send ? held.response : held.otherwise)
        } else {
            .sentInstead(parked.stoppingResponse)
        }
        return send(held.delivering(delivery) ?? delivery.response!, context, connection)
    }

    /// Queues the 503 of a stopping server in place of any answer, and tells the handler
    /// (``HTTPRequestEnding/refusedWhileStopping(status:)``: its log line and metrics).
    private func refuseWhileStopping(_ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        let response = parked.stoppingResponse
        handler.requestEndedUnanswered(request(from: context), ending: .refusedWhileStopping(status: response.status))
        return queue(response, on: connection)
    }

    /// Queues `response`, or parks the connection for its ``HTTPResponse/delay`` first: the
    /// delay is one user of the deferred path (a timer sends the response without its delay; at
    /// shutdown it is sent at once; a client that hangs up meanwhile is let go at once).
    private func send(_ response: HTTPResponse, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        // Changed (a copy) only when the connection closes after it; the usual answer is sent as given.
        guard !context.closesAfterAnswer else { return sendAsGiven(response.closingConnection(), context, connection) }
        return sendAsGiven(response, context, connection)
    }

    /// ``send(_:_:_:)`` of `response` as it goes out (`Connection: close` added where due).
    private func sendAsGiven(_ response: HTTPResponse, _ context: RequestContext, _ connection: OpaquePointer) -> MHD_Result {
        if let share = response.budgetShare { context.answerShare = share }
        if let held = response.heldWhileSent { context.answerHeld = held }
        guard let delay = response.delay, delay > .zero else {
            context.answerTag = response.completionTag
            if context.answerShare != nil || response.outlastsSocketBuffers {
                context.watched?._withUnsafeGuaranteedRef { $0.watchAnswer() }
            }
            let queued = queue(response, on: connection, for: context)
            if queued == .NO, !context.parkedToQueue, Self.getsContinueWithoutBody(context),
               let responder = parked.park(connection, context, atShutdown: response, watching: .endOfStream) {
                context.parkedToQueue = true
                // libmicrohttpd 0.9.75 sends `100 Continue` to a bodiless request too and, when
                // the next pipelined request is already read, asks for the answer in a state in
                // which it refuses to queue one, then closes the connection (tester finding
                // tester48a-F3: the answer lost, its mock's `limit` spent, the next request
                // dropped). Parked and resumed, it is asked again where queueing works.
                DispatchQueue.global().async { responder.send(response) }
                return .YES
            }
            return queued
        }
        var undelayed = response
        undelayed.delay = nil
        undelayed.whenDelayEnds = nil
        // A delay only serves its client: its FIN lets it go (the hit is given back).
        guard let responder = parked.park(connection, context, atShutdown: undelayed, watching: .endOfStream) else {
            if let instead = response.whenDelayEnds?(.sent) { return answer(instead, context, connection) }
            context.answerTag = undelayed.completionTag
            return queue(undelayed, on: connection, for: context)
        }
        context.delayed = response  // parked: no other thread reads it until resumed
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) { [undelayed] in responder.send(undelayed) }
        return .YES
    }

    /// What libmicrohttpd leaves of the connection memory for the response's head beside this
    /// request (``ResponseHeadRoom``). Query parameters and cookie pairs are counted only when
    /// the target has a query or the request a `Cookie` field, both already seen on the way
    /// (``RequestContext/targetHasQuery``, ``RequestContext/cookieLength``): the usual request,
    /// with neither, costs no search of its target nor lookup of its fields here.
    private func responseHeadRoom(_ context: RequestContext, _ connection: OpaquePointer, headSize: Int, fieldCount: Int) -> Int {
        var entries = fieldCount
        if context.targetHasQuery {
            entries += Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil))
        }
        if context.cookieLength != nil {
            entries += Int(MHD_get_connection_values(connection, .COOKIE_KIND, nil, nil))
        }
        return ResponseHeadRoom.room(memory: connectionMemory, headSize: headSize, entries: entries, cookieLength: context.cookieLength)
    }

    /// What is known of the request: `context.method` is `""` and the headers empty until the
    /// header section was accepted (the first access-handler call).
    func request(from context: RequestContext) -> HTTPRequest {
        var request = HTTPRequest(
            method: context.method, target: context.target, headers: context.headers,
            body: context.oversized ? [] : context.body, receivedAt: context.receivedAt)
        if context.oversized { request.discardedBodySize = context.bodySizeSeen }
        request.peer = context.clientAddress
        request.version = context.version
        request.responseHeadRoom = context.responseHeadRoom
        return request
    }

    /// The connection's peer address (formatted for `X-Forwarded-For` only when read).
    private static func clientAddress(_ connection: OpaquePointer) -> ClientAddress {
        var bytes = SIMD16<UInt8>.zero
        let family = withUnsafeMutableBytes(of: &bytes) {
            catbird_mhd_client_ip(connection, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ClientAddress(family: family, bytes: bytes)
    }

    /// Queues `response` on `connection`; a file body that ends early is noted on `context`
    /// (``RequestContext/fileEndedEarly``) for the handler's ``HTTPHandler/answerCutShort(_:tag:ending:)``.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, for context: RequestContext? = nil) -> MHD_Result {
        if let prepared = response.preparedForm {  // made once, queued again (HTTPResponse.prepared())
            return MHD_queue_response(connection, UInt32(response.status), prepared.handle)
        }
        // Only a file body can end early: no closure is made for the others (every 404 among them).
        var noteEnding: (@Sendable (HTTPAnswerCutShort) -> Void)?
        if let context, case .file = response.content { noteEnding = { ending in context.fileEndedEarly = ending } }
        guard let body = ResponseBody.make(
            response.content, socket: catbird_mhd_connection_fd(connection),
            connection: ResponseBody.Connection(handle: connection, pauses: streamPauses), handler: handler, sharingBytes: true,
            fileEndedEarly: noteEnding) else {
            if case .bytes = response.content { return .NO }  // out of memory: MHD closes the connection
            return queue(ResponseBody.unreadableFile, on: connection)
        }
        defer { MHD_destroy_response(body) }
        ResponseBody.addFields(of: response, to: body)
        return MHD_queue_response(connection, UInt32(response.status), body)
    }
}
