import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Dispatch
import Synchronization

/// Answers a non-control request (`docs/matching.md#resolution-order`): the caller's mocks,
/// then the default tenant's, then the mocks directory's files (``FileServing``), then the
/// upstream (``Forwarding``: the caller forwards), else a 404 with the request's near misses
/// (``NotFoundAnswer``); journals what it answers itself.
struct MockServing: Sendable {
    let mocks: MockStore
    let journal: Journal
    /// The mocks directory, when one is configured and files are served (not while recording).
    let files: FileServing?
    /// Keeps the admin token out of the journal (``AdminAccess/redactingToken(in:)``).
    let admin: AdminAccess
    /// Where unanswered requests go in redirect and proxy modes; nil when neither is on.
    let forwarding: Forwarding?
    /// Where a regexp stopped by the evaluation budget is reported (warning).
    let log: Logger
    /// Where a regexp stopped by the evaluation budget is counted.
    let metrics: ServerMetrics
    /// `--cors`, `--cors-origin`: CORS headers are added to an allowed origin's answer before it
    /// is journaled (``CORS``); nil when off.
    let cors: CORS?
    /// `--durability strict`: a delayed response leaves only once its entry is committed.
    let strict: Bool
    /// Each mock's response as sent in the current second, shared by its hits (not used with
    /// `--cors`); `update` prepares a changed mock's (``SentMockAnswers/prepare(_:)``).
    let sentAnswers: SentMockAnswers
    /// Each tenant's places for parked requests, which a delayed answer takes (``ParkedRequests``).
    let parked: ParkedRequests
    /// Paces the warnings about the default tenant's slow mocks skipped on the workers.
    let skippedWarnings = WarningPace()
    /// The 404's head in the current second, shared by its misses (``NotFoundHead``).
    let notFoundHead = NotFoundHead()

    /// What serving decided for a request, before anything is journaled: an answer with its
    /// journal entry (nil for a delayed answer, journaled when its delay ends) and the hit it
    /// counted, for the caller to journal (``append(_:settling:)``) when it sends the answer; or
    /// an upstream to forward to (the caller journals the upstream's answer).
    enum Served {
        case answered(HTTPResponse, CatbirdRequest.AnsweredBy, JournalEntry?, MockHit?)
        case forward(Forwarding.Destination)
    }

    /// What a worker decided for a request (``respond(to:tenant:within:refundable:)``).
    enum OnWorker {
        /// Served on the worker.
        case served(Served)
        /// A regular expression was still running at the end of the worker's slice, or a body
        /// pattern was not let read a body over 64 KiB (the cause): nothing was counted nor
        /// journaled; the matching lane serves the request again with the whole budget
        /// (``respond(to:tenant:refundable:)``).
        case unfinished(MatchingLane.Cause)
        /// No mock matched while the tables were at `generation` (``MockStore/generation``, read
        /// before matching), and the 404 would first build the near-miss catalogs of more than
        /// ``MockStore/nearMissCatalogWorkerLimit`` mocks: nothing was counted nor journaled; the
        /// matching lane answers the 404 without matching again while the tables are unchanged
        /// (``notFound(missedAt:_:tenant:)``).
        case notFoundOnLane(generation: UInt64)
    }

    /// Serves `request` on a worker, if its regular expressions finish within `slice` and its
    /// 404 needs no large near-miss catalog built first (``OnWorker``). With `refundable`, the
    /// hit stays refundable (``MockStore/refund(_:)``) until the caller settles it (strict
    /// durability: ``append(_:settling:)``); so does one whose mock's response body has
    /// `refundableFromBody` bytes or more (``CatbirdHandler``: an answer whose journal entry may
    /// be held). `kind`: a worker's slice, or the body lane's
    /// (``RegexpSlice/bodyLane``: every pass over the body runs, so the cause of an unfinished
    /// match there is its regular expressions).
    func respond(
        to request: HTTPRequest, tenant: TenantID, within slice: Duration, as kind: RegexpSlice = .matching, refundable callerRefunds: Bool,
        refundableFromBody: Int = .max
    ) -> OnWorker {
        let mayNotFit = mayNotFit(request)
        // Read before matching: a miss stands on the lane only while no table changed since.
        let generation = mocks.generation
        // Each mock tried asks for its header patterns' names (try8b F10: by index, not a search per ask).
        var fields = HTTPHeaders.Lookup(request.headers)
        // The default tenant's mocks marked slow, not tried for this (another tenant's) request.
        var skipped: [SkippedMock] = []
        switch mocks.serve(
            tenant: tenant, method: request.method, target: request.target, headerValue: { fields.first($0) },
            body: request.matchedBody, within: slice, as: kind, refundable: callerRefunds || mayNotFit,
            refundableFromBody: refundableFromBody, skipped: { skipped.append(SkippedMock(mock: $0, charged: true)) }) {
        case let .hit(hit):
            if !skipped.isEmpty { reportOutOfTime(skipped, request: request, tenant: tenant, paced: true) }
            let callerSettles = callerRefunds || hit.mock.responseBody.count >= refundableFromBody
            return .served(
                Self.naming(skipped, in: answer(hit, request: request, tenant: tenant, mayNotFit: mayNotFit, callerRefunds: callerSettles), tenant: tenant))
        case .miss:
            if !skipped.isEmpty { reportOutOfTime(skipped, request: request, tenant: tenant, paced: true) }
            if let other = answeredWithoutMock(request, tenant: tenant) { return .served(other) }
            // The 404's near-miss catalogs of a large table are built off the workers.
            let tables = mocks.nearMissTables(of: tenant)
            guard tables.catalogsToBuild <= MockStore.nearMissCatalogWorkerLimit else { return .notFoundOnLane(generation: generation) }
            return .served(notFound(request, tenant: tenant, outOfTime: skipped, regexpSlice: slice, generation: generation, tables: tables))
        case .unfinished:
            return .unfinished(RequestBodyScope.refusedLargeBody ? .largeBody(bytes: request.matchedBody.count) : .slowExpressions)
        }
    }

    /// Serves `request` with its whole evaluation budget (docs/matching.md#evaluation-budget):
    /// a mock whose regular expression overruns it counts as not matching, and the request's
    /// overruns are reported together (``reportOutOfTime(_:request:tenant:)``). `refundable` as
    /// in ``respond(to:tenant:within:refundable:)``.
    func respond(to request: HTTPRequest, tenant: TenantID, refundable callerRefunds: Bool) -> Served {
        let mayNotFit = mayNotFit(request)
        var outOfTime: [SkippedMock] = []
        // Read before matching: what the 404's memo is keyed by (``NotFoundMemo``).
        let generation = mocks.generation
        var fields = HTTPHeaders.Lookup(request.headers)
        let served = mocks.serve(
            tenant: tenant, method: request.method, target: request.target,
            headerValue: { fields.first($0) }, body: request.matchedBody, refundable: callerRefunds || mayNotFit,
            outOfTime: { outOfTime.append(.outOfTime($0)) }, skipped: { outOfTime.append(SkippedMock(mock: $0, charged: true)) })
        if !outOfTime.isEmpty { reportOutOfTime(outOfTime, request: request, tenant: tenant) }
        guard let hit = served else {
            return answeredWithoutMock(request, tenant: tenant) ?? notFound(request, tenant: tenant, outOfTime: outOfTime, regexpSlice: nil, generation: generation)
        }
        return Self.naming(outOfTime, in: answer(hit, request: request, tenant: tenant, mayNotFit: mayNotFit, callerRefunds: callerRefunds), tenant: tenant)
    }

    /// `served`, a later mock's answer, with the mocks `skipped` before it named in its journal
    /// entry's `problem` (`answered by a later mock: mock 3 (…) of tenant "s1" was skipped: …`),
    /// so a request whose answer changed with the machine's load (the budget is wall time on
    /// the matching lane) can be told from the journal and the page, not only from the log
    /// (tester finding tester59b-F3). A delayed answer, journaled when its delay ends, is not.
    private static func naming(_ skipped: [SkippedMock], in served: Served, tenant: TenantID) -> Served {
        guard !skipped.isEmpty, case .answered(let response, let answeredBy, var entry?, let hit) = served else { return served }
        let named = "answered by a later mock: " + NotFoundAnswer.outOfTimeSummaries(skipped, for: tenant)
        entry.problem = entry.problem.map { $0 + "; " + named } ?? named
        return .answered(response, answeredBy, entry, hit)
    }

    /// Appends `entry`, the journal entry of the answer `response`, now, and returns `response`
    /// tagged with the entry's ticket (``HTTPResponse/completionTag``: when it does not go out
    /// whole, the entry is amended, ``CatbirdHandler/answerCutShort(_:tag:ending:)``) and the
    /// ticket. The one place an answer's ticket is made, so no answer journaled before it is
    /// sent goes out untagged. With strict durability the hit it carries stands once the entry
    /// is committed (``settleOnceCommitted(_:_:)``).
    func append(
        _ entry: JournalEntry, of response: HTTPResponse, settling hit: MockHit?
    ) -> (sent: HTTPResponse, ticket: JournalTicket) {
        let ticket = journal.append(entry)
        return (appended(ticket, of: response, settling: hit), ticket)
    }

    /// `response` tagged with `ticket`, its journal entry's, once the entry is queued
    /// (``append(_:of:settling:)``, or later for an entry held for its tenant's share of the
    /// journal queue, ``Journal/appendOrHold(_:)``); with strict durability `hit` stands once
    /// the entry is committed.
    func appended(_ ticket: JournalTicket, of response: HTTPResponse, settling hit: MockHit?) -> HTTPResponse {
        if strict { settleOnceCommitted(hit, ticket) }
        var sent = response
        sent.completionTag = ticket.completionTag
        return sent
    }

    /// Whether a mock's head may not fit beside `request`'s: its head leaves less than the mock
    /// limit, or the CORS fields are added (their size depends on the request's `Origin`, not
    /// checked when the mock was added). A hit is then kept refundable until
    /// ``refusedForHead(_:_:request:tenant:)`` has decided.
    private func mayNotFit(_ request: HTTPRequest) -> Bool {
        request.responseHeadRoom < OversizedHead.mockLimit || (cors != nil && request.headers.first("Origin") != nil)
    }

    /// What answers a request no mock matched before the 404: a file mock, the proxy's refusal of
    /// `CONNECT`, the upstream (``Served/forward(_:)``), the loop's 508 for a request that came
    /// round from this Catbird; nil: the 404 (``notFound(_:tenant:outOfTime:regexpSlice:generation:tables:)``).
    private func answeredWithoutMock(_ request: HTTPRequest, tenant: TenantID) -> Served? {
        if let answer = files?.respond(to: request) {
            // A large file answer holds one of its tenant's places while it goes out, as a large
            // mock answer does (``answer(_:request:tenant:mayNotFit:callerRefunds:)``; tester
            // finding tester41a-F3).
            var place: ParkedRequests.Place?
            if answer.response.outlastsSocketBuffers {
                guard let taken = parked.admit(tenant) else { return refused(parked.refusal(tenant), request: request, tenant: tenant) }
                place = taken
            }
            var (sent, entry) = entry(
                request: request, response: answer.response, responseHeadersJSON: nil,
                answeredBy: .file, hit: nil, tenant: tenant, filePath: answer.path.isEmpty ? nil : answer.path,
                journalBody: answer.journalBody)
            if let problem = answer.problem { entry.problem = problem }
            sent.heldWhileSent = place
            return .answered(sent, .file, entry, nil)
        }
        if let forwarding, request.method == "CONNECT", forwarding.proxyEnabled {
            let (sent, entry) = entry(
                request: request, response: forwarding.generated(Forwarding.connectNotSupported), responseHeadersJSON: nil, answeredBy: .unanswered,
                hit: nil, tenant: tenant)
            return .answered(sent, .unanswered, entry, nil)
        }
        if let destination = forwarding?.destination(of: request.target) { return .forward(destination) }
        if let forwarding, forwarding.isLoop(request) {
            // Came round from this Catbird (a proxy to itself) and nothing here answers it:
            // the loop's 508, marked as Catbird's own, which the hop before does not record.
            let (sent, entry) = entry(
                request: request, response: forwarding.loopDetected, responseHeadersJSON: nil, answeredBy: .unanswered,
                hit: nil, tenant: tenant)
            return .answered(sent, .unanswered, entry, nil)
        }
        return nil
    }

    /// `hit`'s mock's answer. A hit made refundable for the head check alone (`mayNotFit`, not
    /// `callerRefunds`) is settled once its head is known to fit.
    private func answer(_ hit: MockHit, request: HTTPRequest, tenant: TenantID, mayNotFit: Bool, callerRefunds: Bool) -> Served {
        var hit = hit
        let mock = hit.mock
        // A `Range` request's part of a 200 (docs/files.md#byte-ranges): made for this request,
        // its fields journaled as sent, not the mock's as given nor the second's shared answer.
        let made = RangedAnswer.isAsked(by: request)
            ? RangedAnswer.response(Self.response(of: mock), for: request) : nil
        let ranged = made?.response
        let (headersJSON, headersMemo) = ranged == nil ? (mock.responseHeadersJSON, mock.sentHeadersJSON) : (nil, nil)
        // With --cors, the head checked is the one sent: measured once (CORS fields, Date, framing).
        var checked: OversizedHead.Measured?
        if mayNotFit {
            let outgoing = OversizedHead.Outgoing(ranged ?? Self.response(of: mock), to: request, cors: cors).measured
            if let refused = refusedForHead(hit, outgoing, request: request, tenant: tenant) { return refused }
            checked = outgoing
            // The head fits: a hit refundable for this check alone stands now. One its caller or
            // its delay keeps refundable is settled or refunded once, when its answer goes out
            // or does not (``delayed(_:hit:place:request:tenant:headersJSON:headersMemo:journalBody:)``, the caller).
            // Passed on as settled, so the caller's settling of what is refundable leaves it alone.
            if !callerRefunds && !mock.isDelayed { hit = mocks.settled(hit) }
        }
        if mock.isDelayed, let seconds = mock.responseDelay {
            // Its connection is parked for the delay: one of its tenant's places (``ParkedRequests``).
            guard let place = parked.admit(tenant) else { return refusedForPlace(hit, request: request, tenant: tenant) }
            var response = ranged ?? Self.response(of: mock)
            response.delay = .seconds(seconds)
            return .answered(
                delayed(
                    response, hit: hit, place: place, request: request, tenant: tenant, headersJSON: headersJSON,
                    headersMemo: headersMemo, journalBody: made?.journalBody),
                .mock, nil, hit)
        }
        // A large answer holds its connection while it goes out, as long as its client reads: one
        // of its tenant's places (``ParkedRequests``), given back once sent; past its share, the
        // 429 and the hit given back (tester finding tester41a-F3: one tenant's 600 connections
        // that never read a 5 MB answer kept every other tenant and the health check out for 33 s).
        var place: ParkedRequests.Place?
        if hit.isRefundable, ranged?.outlastsSocketBuffers ?? HTTPResponse.outlastsSocketBuffers(bodyLength: mock.responseBody.count) {
            guard let taken = parked.admit(tenant) else { return refusedForPlace(hit, request: request, tenant: tenant) }
            place = taken
        }
        guard cors == nil, ranged == nil else {
            // CORS fields depend on the request, so with --cors each answer is made for its request.
            var (sent, entry) = entry(
                request: request, response: ranged ?? Self.response(of: mock), responseHeadersJSON: headersJSON,
                headersMemo: headersMemo, answeredBy: .mock, hit: hit, tenant: tenant, journalBody: made?.journalBody, measured: checked)
            sent.heldWhileSent = place
            return .answered(sent, .mock, entry, hit)
        }
        var (sent, entry) = shared(hit, request: request, tenant: tenant)
        sent.heldWhileSent = place
        return .answered(sent, .mock, entry, hit)
    }

    /// `hit`'s mock answered with the response its hits of this second share (``SentMockAnswers``),
    /// journaled with the header fields that answer went out with: the ones shared too, unless
    /// libmicrohttpd adds more than the framing to this request (``addsFramingOnly(_:)``).
    private func shared(_ hit: MockHit, request: HTTPRequest, tenant: TenantID) -> (sent: HTTPResponse, entry: JournalEntry) {
        let mock = hit.mock
        let answer = sentAnswers.answer(of: mock)
        var headersJSON = answer.journaledHeaders
        if !Self.addsFramingOnly(request) {
            let response = Self.response(of: mock)
            headersJSON = Self.sentHeadersJSON(
                response: response, decorated: response, sent: answer.response,
                added: answer.response.fieldsAddedOnSending(to: request), responseHeadersJSON: mock.responseHeadersJSON,
                headersMemo: mock.sentHeadersJSON)
        }
        return (answer.response, entry(request: request, response: answer.response, headersJSON: headersJSON, answeredBy: .mock, hit: hit, tenant: tenant))
    }

    /// The 500 sent in place of `hit`'s mock's response when its head does not fit beside this
    /// request's (``OversizedHead``; a mock's head is at most ``OversizedHead/mockLimit``, so only
    /// a request whose head leaves less than that, or one with `Origin` under `--cors`, is
    /// checked, its hit refundable): the hit is given back, and the error journaled as the
    /// server's answer. Nil when the head fits. The only place a mock's answer is refused for
    /// its head (``entry(request:response:responseHeadersJSON:headersMemo:answeredBy:hit:tenant:filePath:journalBody:nearMisses:measured:)``
    /// checks the other answers'). `outgoing`: the mock's response as it goes out to `request`,
    /// measured (with `--cors`, then sent as measured).
    private func refusedForHead(_ hit: MockHit, _ outgoing: OversizedHead.Measured, request: HTTPRequest, tenant: TenantID) -> Served? {
        let size = outgoing.headSize
        guard size > request.responseHeadRoom else { return nil }
        mocks.refund(hit)
        let (refusal, entry) = oversized(
            request, source: "mock \(hit.mock.id)'s response", size: size, answeredBy: .unanswered, filePath: nil, tenant: tenant)
        return .answered(refusal, .unanswered, entry, nil)
    }

    /// The JSON error sent in place of an answer whose head of `size` bytes does not fit beside
    /// `request`'s (``OversizedHead``): 502 for an upstream's answer (marked as Catbird's own,
    /// ``Forwarding/generated(_:)-(HTTPResponse)``), else 500; journaled with
    /// `answeredBy` and `filePath` as the answer would have been, and the reason as its `problem`.
    private func oversized(
        _ request: HTTPRequest, source: String, size: Int, answeredBy: CatbirdRequest.AnsweredBy, filePath: String?,
        tenant: TenantID
    ) -> (sent: HTTPResponse, entry: JournalEntry) {
        let forwarded = answeredBy == .proxy || answeredBy == .redirect
        let error = OversizedHead.error(status: forwarded ? 502 : 500, source: source, size: size, room: request.responseHeadRoom)
        // In place of an upstream's answer: marked as Catbird's own (tester finding T14-F4).
        let response = forwarded ? forwarding.map { $0.generated(error) } ?? error.response : error.response
        let sent = response.stamped()
        let added = sent.fieldsAddedOnSending(to: request)
        var entry = entry(
            request: request, response: response, headersJSON: JSONText.object(sent.headers.fields + added),
            answeredBy: answeredBy, hit: nil, tenant: tenant, filePath: filePath)
        entry.problem = OversizedHead.problem(source: source, size: size, room: request.responseHeadRoom)
        return (sent, entry)
    }

    /// `mock`'s answer as its hits share it (``SentMockAnswers``) in the second whose HTTP-date
    /// is `date`: its response stamped with `date` and prepared, and the header fields it goes
    /// out with to a request to which libmicrohttpd adds only the framing (``addsFramingOnly(_:)``)
    /// as journaled.
    static func sharedAnswer(of mock: Mock, date: String) -> SentMockAnswers.Answer {
        let response = response(of: mock)
        let sent = response.stamped(date: date).prepared()
        let framingOnly = HTTPRequest(method: "GET", target: "/")  // HTTP/1.1, no Connection
        return SentMockAnswers.Answer(
            response: sent,
            journaledHeaders: Self.sentHeadersJSON(
                response: response, decorated: response, sent: sent, added: sent.fieldsAddedOnSending(to: framingOnly),
                responseHeadersJSON: mock.responseHeadersJSON, headersMemo: nil))
    }

    /// `mock`'s response as given (no delay).
    private static func response(of mock: Mock) -> HTTPResponse {
        HTTPResponse(status: mock.responseStatus, headers: HTTPHeaders(mock.responseHeaderFields), body: mock.responseBody)
    }

    /// Whether libmicrohttpd adds only the framing fields (`Content-Length`) to a response to
    /// `request`, the same ones as to a `GET` (``HTTPRequest/getsFramingOnly``, beside the rules
    /// of ``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``; tester finding T18A-F6: a
    /// `CONNECT`'s journal recorded the GET's `Content-Length: 7`). A mock's answer's journaled
    /// header fields are then the same for every such request (``SentMockAnswers/Answer/journaledHeaders``).
    static func addsFramingOnly(_ request: HTTPRequest) -> Bool {
        request.getsFramingOnly
    }

    /// Counts (`catbird_regexp_budget_overruns_total`, one per mock) and logs the mocks whose
    /// regular expressions ran out of `request`'s budget (docs/matching.md#evaluation-budget):
    /// they counted as not matching it. One warning per request, naming the first
    /// ``NotFoundAnswer/outOfTimeShown`` mocks as a 404's reason does (``NotFoundAnswer``), then
    /// how many more: `mock 3 (GET regexp "^/(a+)+$") of tenant "s1" was skipped: …; and 97 more
    /// mocks were skipped the same way for GET "/x" (tenant "s1")`. `paced`: the default
    /// tenant's slow mocks skipped on a worker, logged at most once a second (``WarningPace``)
    /// with how many such requests were not logged since.
    private func reportOutOfTime(_ outOfTime: [SkippedMock], request: HTTPRequest, tenant: TenantID, paced: Bool = false) {
        metrics.regexpBudgetOverruns.add(outOfTime.count, ordering: .relaxed)
        var withheld = ""
        if paced {
            guard let count = skippedWarnings.admit() else { return }
            if count > 0 { withheld = " (and \(count) more requests of other tenants since the last such warning)" }
        }
        let named = NotFoundAnswer.outOfTimeSummaries(outOfTime, for: tenant)
        log.warning("\(named) for \(request.method) \(JSONText.string(request.target)) (\(tenant.named))\(withheld)")
    }

    /// A delayed mock response, journaled when its delay ends (docs/protocol.md#delays): as
    /// sent, or, when the client hung up first, as 499 with no response headers or body and
    /// the time it waited; the hit is then given back (``MockStore/refund(_:)``). With strict
    /// durability the response leaves once the sent entry is committed (``Journal/answer(_:onceCommitted:sent:)``:
    /// the connection is parked again, no worker waits), or is withheld with a 503 when the entry
    /// could not be written.
    /// `place`: its tenant's place for the parked delay (``ParkedRequests``), given back when the
    /// delay ends. `headersJSON`, `headersMemo`: the mock's header JSON and its memo, nil for an answer made
    /// for this request (a byte range's). `journalBody`: what the journal keeps of a body sent
    /// from the mock's stored one (``RangedAnswer/Made/journalBody``), nil when it is in `response`.
    private func delayed(
        _ response: HTTPResponse, hit: MockHit, place: ParkedRequests.Place, request: HTTPRequest, tenant: TenantID,
        headersJSON: String?, headersMemo: JSONText.AppendingMemo?, journalBody: JournaledBody? = nil
    ) -> HTTPResponse {
        let (stamped, decided) = entry(request: request, response: response, responseHeadersJSON: headersJSON,
                                       headersMemo: headersMemo, answeredBy: .mock, hit: hit, tenant: tenant, journalBody: journalBody)
        var sent = stamped
        sent.whenDelayEnds = { [self] outcome in
            place.release()  // no longer parked for the delay: its answer goes out, or its client left
            var entry = decided
            // What goes out when the delay ends: made again then, so that its `Date` (and the
            // one journaled) is the time it is sent, not the time the request arrived, a whole
            // delay earlier (RFC 9110 §6.6.1: the time the message was generated; tester
            // finding try9a F17). A mock's own `Date` field is sent as given.
            var undelayed = stamped
            switch outcome {
            case .sent:
                if !strict { mocks.settle(hit) }
                let waited = ContinuousClock.now - request.receivedAt
                if response.headers.first("Date") == nil {
                    let remade = self.entry(
                        request: request, response: response, responseHeadersJSON: headersJSON, headersMemo: headersMemo,
                        answeredBy: .mock, hit: hit, tenant: tenant, journalBody: journalBody)
                    undelayed = remade.sent
                    entry.responseHeaders = remade.entry.responseHeaders
                }
                entry.durationMs = waited.milliseconds
                if let delay = response.delay, waited < delay {
                    // Only a stopping server sends a delayed answer early (docs/protocol.md#delays;
                    // tester finding try10a F16: the entry read as if the whole delay had passed).
                    let cut = "the server was stopping: the answer was sent \(Self.shortMilliseconds(waited)) ms after "
                        + "the request arrived, not after the mock's \(delay.components.seconds) s delay"
                    entry.problem = entry.problem.map { $0 + "; " + cut } ?? cut
                }
            case let .clientLeft(waited):
                mocks.refund(hit)
                // At the time and with the request's header JSON of the answer it was to get.
                entry = Self.nothingSentEntry(
                    request: request, tenant: tenant, status: Self.clientLeftStatus, time: entry.time,
                    requestHeaders: entry.requestHeaders, waited: waited,
                    problem: "the client closed the connection during the delay; nothing was sent")
            }
            undelayed.delay = nil
            undelayed.whenDelayEnds = nil
            let (tagged, ticket) = append(entry, of: undelayed, settling: outcome == .sent ? hit : nil)
            guard strict, outcome == .sent else { return outcome == .sent ? .now(tagged) : nil }
            // The 503 in place of a mock's answer is Catbird's own: marked where the request would
            // have been forwarded (``Forwarding/refusal(_:of:)``).
            let withheld = forwarding?.refusal(Journal.notJournaled, of: request.target) ?? Journal.notJournaled
            return journal.answer(tagged, onceCommitted: ticket, otherwise: withheld)
        }
        return sent
    }

    /// `duration` in whole milliseconds, for a sentence.
    private static func shortMilliseconds(_ duration: Duration) -> Int64 {
        Int64(duration.milliseconds.rounded())
    }

    /// Strict durability (README.md#durability): `hit` stands once the entry behind `ticket`
    /// (which carries it) is committed; when the entry is dropped the answer is withheld (503,
    /// ``Journal/notJournaled``) and the hit given back (``MockStore/refund(_:)``), so the live
    /// table agrees with the `mocks` row, which the dropped entry never changed. Registered
    /// before the answer waits for the same commit, so a client that gets the 503 finds the
    /// use given back.
    func settleOnceCommitted(_ hit: MockHit?, _ ticket: JournalTicket) {
        guard let hit else { return }
        journal.whenCommitted(ticket) { [mocks] committed in
            if committed { mocks.settle(hit) } else { mocks.refund(hit) }
        }
    }

    /// `response`, answered by the server itself (no mock, file or upstream), with its journal entry.
    func answered(_ response: HTTPResponse, request: HTTPRequest, tenant: TenantID) -> Served {
        let (sent, entry) = entry(request: request, response: response, responseHeadersJSON: nil, answeredBy: .unanswered, hit: nil, tenant: tenant)
        return .answered(sent, .unanswered, entry, nil)
    }

    /// Appends the request and its answer to the tenant's journal, and returns the response
    /// to send (``HTTPResponse/stamped()``: its `Date` is the one journaled). The journal gets
    /// the request as received (`request.body` is what was kept of it) and the response as
    /// it goes out: every header field on the wire, those libmicrohttpd adds included
    /// (``HTTPResponse/fieldsAddedOnSending(to:fileLength:)``), no body for a HEAD request
    /// (none is sent), and the time from arrival to the response, any delay included.
    /// - Parameter responseHeadersJSON: `response.headers` as the journal's JSON object when
    ///   known in advance (a mock's ``Mock/responseHeadersJSON``, an API error's
    ///   ``APIError/headersJSON``, fields all sent as given), so it is not encoded again per
    ///   request; nil: encoded here.
    /// - Parameter headersMemo: where the response header JSON built from `responseHeadersJSON`
    ///   is remembered for the next request (a mock's ``Mock/sentHeadersJSON``).
    /// - Parameter journalBody: the body as the journal is to keep it when `response` does not
    ///   hold it as bytes (``JournaledBody``: a file sent from disk, a byte range sent from a
    ///   mock's stored body); nil: `response.body`.
    /// - Parameter nearMisses: where a 404's near misses (a JSON array) are in `response.body`;
    ///   the entry points there, or copies them when no body is journaled (a HEAD request).
    /// - Parameter problem: the entry's `problem` (a forwarded answer record mode did not write).
    /// - Parameter measured: `response` as it goes out to `request`, with its head's size, when
    ///   already measured (``UpstreamServing/Answer/measured``): sent and checked as it is.
    /// - Parameter time: the entry's `time` when the answer was chosen before now
    ///   (``Timestamp``): a forwarded request's is when it was sent to the upstream, not when
    ///   the upstream's answer (or Catbird's 502/504 in its place) came back, as a delayed
    ///   mock's is before its delay (docs/protocol.md#what-the-journal-records; tester finding
    ///   tester26a-F4); nil: now.
    /// - Returns: the response to send, tagged with the entry's ticket, and the ticket
    ///   (``Journal/whenCommitted(_:_:)``; ``append(_:of:settling:)``).
    @discardableResult
    func journal(
        request: HTTPRequest, response: HTTPResponse, responseHeadersJSON: String?, headersMemo: JSONText.AppendingMemo? = nil,
        answeredBy: CatbirdRequest.AnsweredBy, hit: MockHit?, tenant: TenantID, filePath: String? = nil,
        journalBody: JournaledBody? = nil, nearMisses: Range<Int>? = nil, problem: String? = nil,
        measured: OversizedHead.Measured? = nil, time: String? = nil
    ) -> (sent: HTTPResponse, ticket: JournalTicket) {
        var (sent, entry) = entry(
            request: request, response: response, responseHeadersJSON: responseHeadersJSON, headersMemo: headersMemo,
            answeredBy: answeredBy, hit: hit,
            tenant: tenant, filePath: filePath, journalBody: journalBody, nearMisses: nearMisses, measured: measured)
        if let problem { entry.problem = problem }
        if let time { entry.time = time }
        return append(entry, of: sent, settling: nil)
    }

    /// The response to send and its journal entry, as ``journal(request:response:responseHeadersJSON:headersMemo:answeredBy:hit:tenant:filePath:journalBody:nearMisses:problem:measured:time:)``
    /// appends them.
    func entry(
        request: HTTPRequest, response: HTTPResponse, responseHeadersJSON: String?, headersMemo: JSONText.AppendingMemo? = nil,
        answeredBy: CatbirdRequest.AnsweredBy, hit: MockHit?, tenant: TenantID, filePath: String? = nil,
        journalBody: JournaledBody? = nil, nearMisses: Range<Int>? = nil, measured: OversizedHead.Measured? = nil
    ) -> (sent: HTTPResponse, entry: JournalEntry) {
        let outgoing = measured?.outgoing
            ?? OversizedHead.Outgoing(response, to: request, cors: cors, fileLength: journalBody.map { UInt64($0.size) })
        let (decorated, sent, added) = (outgoing.decorated, outgoing.sent, outgoing.added)
        if answeredBy != .mock && (answeredBy != .unanswered || request.responseHeadRoom < OversizedHead.mockLimit) {
            // A file's or an upstream's head may be of any size; the server's own answers fit
            // beside any request that leaves the mock limit. A mock's was checked where its hit
            // could still be given back (``refusedForHead(_:_:request:tenant:)``): nothing here
            // refunds a hit.
            let size = measured?.headSize ?? outgoing.headSize
            if size > request.responseHeadRoom {
                let source = switch answeredBy {
                case .file: "file mock \(JSONText.string(filePath ?? "")) (its sidecar's headers)"
                case .proxy, .redirect: "the upstream's answer"
                default: "the answer"
                }
                return oversized(request, source: source, size: size, answeredBy: answeredBy, filePath: filePath, tenant: tenant)
            }
        }
        let headersJSON = Self.sentHeadersJSON(
            response: response, decorated: decorated, sent: sent, added: added, responseHeadersJSON: responseHeadersJSON,
            headersMemo: headersMemo)
        return (sent, entry(
            request: request, response: response, headersJSON: headersJSON, answeredBy: answeredBy, hit: hit, tenant: tenant,
            filePath: filePath, journalBody: journalBody, nearMisses: nearMisses))
    }

    /// The journal's JSON of the header fields `sent` goes out with: its own plus `added`
    /// (those libmicrohttpd adds). Built on `responseHeadersJSON` (`response.headers` as JSON,
    /// when known in advance) when every field of `response` is sent as given and no CORS
    /// field was added (`decorated`), remembered in `headersMemo` for the next request; else
    /// encoded from `sent`'s fields.
    private static func sentHeadersJSON(
        response: HTTPResponse, decorated: HTTPResponse, sent: HTTPResponse, added: [(name: String, value: String)],
        responseHeadersJSON: String?, headersMemo: JSONText.AppendingMemo?
    ) -> String {
        guard let responseHeadersJSON, decorated.headers.fields.count == response.headers.fields.count,
              response.headers.allSatisfy(HTTPResponse.isSentAsGiven)
        else { return JSONText.object(sent.headers.fields + added) }
        let date: [(name: String, value: String)] = response.headers.first("Date") == nil ? [("Date", sent.headers.first("Date")!)] : []
        return headersMemo?.appending(date + added, to: responseHeadersJSON) ?? JSONText.appending(date + added, to: responseHeadersJSON)
    }

    /// The journal entry of `request` answered with `response` (its status, body and delay)
    /// whose header fields went out as `headersJSON`.
    func entry(
        request: HTTPRequest, response: HTTPResponse, headersJSON: String, answeredBy: CatbirdRequest.AnsweredBy, hit: MockHit?,
        tenant: TenantID, filePath: String? = nil, journalBody: JournaledBody? = nil, nearMisses: Range<Int>? = nil
    ) -> JournalEntry {
        let bodySent = request.method != "HEAD" && response.status >= 200 && response.status != 204
        let delayMs = response.delay?.milliseconds ?? 0
        let elapsed = ContinuousClock.now - request.receivedAt
        return JournalEntry(
            time: Timestamp.now(), tenant: tenant, method: request.method, url: request.target,
            requestHeaders: JSONText.objectReusingRecent(admin.redactingToken(in: request.headers.fields)), requestBody: request.body,
            status: response.status, responseHeaders: headersJSON,
            responseBody: bodySent && journalBody == nil ? response.body : [], answeredBy: answeredBy,
            mockHit: hit.map { MockHitRecord(mockID: $0.mock.id) },
            durationMs: elapsed.milliseconds + delayMs, filePath: filePath,
            responseBodySize: bodySent ? journalBody?.size : nil, sharedResponseBody: bodySent ? journalBody?.bytes : nil,
            nearMisses: nearMisses.map { bodySent ? .inResponseBody($0) : .text(String(decoding: response.body[$0], as: UTF8.self)) },
            problem: request.contentDecoding?.note(receivedBytes: request.body.count), requestBodySize: request.discardedBodySize)
    }
}
