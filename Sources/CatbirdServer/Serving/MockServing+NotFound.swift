import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport

/// The 404 of a request nothing answered (docs/matching.md#near-misses): its near-miss search,
/// on the worker or the matching lane, the answer kept for a repeated miss (``NotFoundMemo``),
/// and its journal entry.
extension MockServing {
    /// The journaled header JSON of the last 404 with near misses (the same `Date` and
    /// `Content-Length` as the next one, for a repeated miss within a second), for a 404 that
    /// does not take ``notFoundHead``'s.
    private static let notFoundHeadersMemo = JSONText.AppendingMemo()

    /// The 404 of a request a worker matched with no mock, nor file or upstream answering it,
    /// while the tables were at `generation` (``OnWorker/notFoundOnLane(generation:)``), made on
    /// the matching lane with the whole budget, without matching the request again; nil when a
    /// table changed since (a mock added may now answer it): the caller serves it afresh
    /// (``respond(to:tenant:refundable:)``).
    func notFound(missedAt generation: UInt64, _ request: HTTPRequest, tenant: TenantID) -> Served? {
        guard mocks.generation == generation else { return nil }
        return notFound(request, tenant: tenant, outOfTime: [], regexpSlice: nil, generation: generation)
    }

    /// The 404 of a request a worker matched with no mock at `generation`
    /// (``OnWorker/notFoundOnLane(generation:)``) when the matching lane has no place for it
    /// (tester finding try8a F9: a burst of misses right after a change of a large table, each
    /// waiting for the first to build the catalogs, was refused with 429s): made on the worker
    /// when the catalogs were built meanwhile, else without near misses
    /// (``NotFoundAnswer/init(unsearched:target:tenant:catalogMocks:)``). A request whose tables
    /// changed since is matched again within the worker's `slice` first (a mock added meanwhile
    /// may answer it): what that serves is returned, a 404 that needs the lane again is answered
    /// without near misses, and regular expressions or a body that need it are
    /// ``BesideLane/needsLane(_:)`` (the caller refuses the request). Call it in the request's
    /// ``RequestBodyScope``.
    func notFoundBesideLane(
        missedAt generation: UInt64, _ request: HTTPRequest, tenant: TenantID, within slice: Duration, refundable: Bool
    ) -> BesideLane {
        guard mocks.generation == generation else {
            switch respond(to: request, tenant: tenant, within: slice, refundable: refundable) {
            case let .served(served): return .served(served)
            case let .unfinished(cause): return .needsLane(cause)
            case .notFoundOnLane: return .served(unsearchedNotFound(request, tenant: tenant))
            }
        }
        let tables = mocks.nearMissTables(of: tenant)
        guard tables.catalogsToBuild <= MockStore.nearMissCatalogWorkerLimit else {
            return .served(unsearchedNotFound(request, tenant: tenant, catalogMocks: tables.catalogsToBuild))
        }
        return .served(notFound(request, tenant: tenant, outOfTime: [], regexpSlice: slice, generation: generation, tables: tables))
    }

    /// What ``notFoundBesideLane(missedAt:_:tenant:within:refundable:)`` decided.
    enum BesideLane {
        /// Served on the worker.
        case served(Served)
        /// Matched again, it needs the matching lane for this cause.
        case needsLane(MatchingLane.Cause)
    }

    /// The 404 without near misses of a request no mock matched whose near-miss catalogs of
    /// `catalogMocks` mocks (nil: looked up) are still to be built, journaled with an empty
    /// `nearMisses` (never kept by ``NotFoundMemo``).
    func unsearchedNotFound(_ request: HTTPRequest, tenant: TenantID, catalogMocks: Int? = nil) -> Served {
        let answer = NotFoundAnswer(
            unsearched: request.method, target: request.target, tenant: tenant,
            catalogMocks: catalogMocks ?? mocks.nearMissTables(of: tenant).catalogsToBuild)
        let (sent, entry) = entry(
            request: request, response: answer.response, responseHeadersJSON: APIError.headersJSON,
            headersMemo: Self.notFoundHeadersMemo, answeredBy: .unanswered, hit: nil, tenant: tenant,
            nearMisses: answer.nearMissesRange)
        return .answered(sent, .unanswered, entry, nil)
    }

    /// The 404 with its near misses (``notFoundAnswer(_:tenant:outOfTime:regexpSlice:generation:tables:)``) and its journal entry.
    func notFound(
        _ request: HTTPRequest, tenant: TenantID, outOfTime: [SkippedMock], regexpSlice: Duration?, generation: UInt64,
        tables: MockStore.NearMissTables? = nil
    ) -> Served {
        let answer = notFoundAnswer(
            request, tenant: tenant, outOfTime: outOfTime, regexpSlice: regexpSlice, generation: generation, tables: tables)
        if cors == nil, Self.addsFramingOnly(request), request.responseHeadRoom >= OversizedHead.mockLimit {
            // The usual request: the second's head and its journal JSON (``NotFoundHead``), as a
            // mock's hit gets its answer's, instead of stamping and encoding the fields per miss.
            let head = notFoundHead.now()
            // A kept answer reused: the form made for this second at its first reuse (``NotFoundMemo``).
            let sent = if let memoEntry = answer.memoEntry {
                NotFoundMemo.sent(memoEntry, date: head.date) { Self.stamped(answer.response, head) }
            } else {
                Self.stamped(answer.response, head)
            }
            let entry = entry(
                request: request, response: answer.response, headersJSON: head.journaledJSON(bodyLength: answer.response.body.count),
                answeredBy: .unanswered, hit: nil, tenant: tenant, nearMisses: answer.nearMissesRange)
            return .answered(sent, .unanswered, entry, nil)
        }
        let (sent, entry) = entry(
            request: request, response: answer.response, responseHeadersJSON: APIError.headersJSON,
            headersMemo: Self.notFoundHeadersMemo, answeredBy: .unanswered, hit: nil, tenant: tenant,
            nearMisses: answer.nearMissesRange)
        return .answered(sent, .unanswered, entry, nil)
    }

    /// `response` (a 404 with near misses) as it goes out in the second of `head`: its header fields `head`'s.
    private static func stamped(_ response: HTTPResponse, _ head: NotFoundHead.Stamped) -> HTTPResponse {
        var sent = response
        sent.headers = head.headers
        return sent
    }

    /// The 404 with the request's near misses (computed only here, on a miss); on a worker,
    /// their regular expressions get the worker's slice, and the search ``MockStore/nearMissWorkBudget``
    /// (``MockStore/nearMisses(tenant:in:method:target:headerValue:body:regexpSlice:budget:timeLimit:)``).
    /// The same request against unchanged mock tables gets the answer this thread kept for it
    /// (``NotFoundMemo``), unless mocks were skipped for their evaluation budget (named in the
    /// reason, so the answer depends on timing) or a mocks directory is set (the reason names
    /// the files tried, ``FileServing/missHint(for:)``, which the memo's key does not cover).
    ///
    /// `generation`: ``MockStore/generation`` read before the request was matched (and so
    /// before the tables are read here: a change made meanwhile leaves the kept answer stale).
    /// `tables`: as looked up after it (``MockStore/nearMissTables(of:)``); nil: looked up here.
    private func notFoundAnswer(
        _ request: HTTPRequest, tenant: TenantID, outOfTime: [SkippedMock], regexpSlice: Duration?, generation: UInt64,
        tables: MockStore.NearMissTables?
    ) -> NotFoundAnswer {
        let namesOtherTenants = !admin.requiresToken
        let reusable = outOfTime.isEmpty && files == nil
        if reusable, let kept = NotFoundMemo.answer(
            to: request, tenant: tenant, namesOtherTenants: namesOtherTenants, generation: generation) {
            return kept
        }
        // Each name looked up once, and the names asked with their values are the memo's key:
        // mocks with thousands of header patterns ask for each of them once per mock compared
        // (a search of a list or of the request's fields per ask made such a 404 cost a
        // second, try7b F8).
        // A local function passed only as a non-escaping argument: `asked` and `fields` are
        // captured in place (a closure stored in a `let` boxed each on the heap, per miss).
        var asked: [String: String?] = [:]
        var fields = HTTPHeaders.Lookup(request.headers)
        // The admin token, where a value holds it, shown as the journal shows it (`[redacted]`).
        func headerValue(_ name: String) -> String? {
            if let value = asked[name] { return value }
            let value = fields.first(name).map(admin.redactingToken(inValue:))
            asked[name] = .some(value)
            return value
        }
        var report = mocks.nearMisses(
            tenant: tenant, in: tables, method: request.method, target: request.target, headerValue: headerValue,
            body: request.matchedBody, regexpSlice: regexpSlice, budget: MockStore.nearMissWorkBudget)
        report.usedUp = mocks.usedUpMatch(
            tenant: tenant, method: request.method, target: request.target, headerValue: headerValue, body: request.matchedBody,
            slice: regexpSlice == nil ? .whole : .comparing)
        // A loop by index rather than a lazy `compactMap(…).first`: its closure, kept by the lazy
        // view, was allocated on the heap with a copy of the request, per miss.
        // Only a near miss whose method and url match: another url's body pattern explains
        // nothing of this miss (tester finding tester42a-F3: `mock 50's jsonPath "$.user": the
        // body is not JSON` in the 404 of an image upload to another path).
        // The mock whose method and url match named outside the near misses
        // (``CatbirdDomain/NearMissReport/sameRoute``) is looked at last.
        for index in report.closest.indices where report.closest[index].comparison.methodAndURLMatch {
            if let text = Self.bodyDifference(report.closest[index].mock, request) {
                report.bodyDifference = (mockID: report.closest[index].mock.id, text: text)
                break
            }
        }
        if report.bodyDifference == nil, let sameRoute = report.sameRoute, let text = Self.bodyDifference(sameRoute.mock, request) {
            report.bodyDifference = (mockID: sameRoute.mock.id, text: text)
        }
        let answer = NotFoundAnswer(
            report: report, method: request.method, target: request.target, tenant: tenant,
            namesOtherTenants: namesOtherTenants, outOfTime: outOfTime,
            modeHint: Self.missHints(
                ForeignAdminHint.hint(target: request.target) ?? ControlPathSlipHint.hint(target: request.target),
                files?.missHint(for: request), forwarding?.missHint(for: request.target)))
        if reusable, report.complete {
            NotFoundMemo.keep(answer, key: NotFoundMemo.Key(
                generation: generation, tenant: tenant, namesOtherTenants: namesOtherTenants, method: request.method,
                target: request.target, body: request.matchedBody, headers: asked))
        }
        return answer
    }

    /// What `request`'s body lacks for `mock`'s `json` or `jsonPath` body pattern, or how its
    /// normalization differs, for the 404's reason; nil when neither applies.
    private static func bodyDifference(_ mock: Mock, _ request: HTTPRequest) -> String? {
        guard let pattern = mock.patternBody else { return nil }
        return pattern.jsonDifference(request.matchedBody) ?? pattern.normalizationDifference(request.matchedBody)
    }

    /// The 404 reason's closing clauses (another mock server's control path, ``ForeignAdminHint``;
    /// the mocks directory; the forwarding modes), joined with `; `, or nil when none has one.
    private static func missHints(_ foreign: String?, _ files: String?, _ forwarding: String?) -> String? {
        func joined(_ first: String?, _ second: String?) -> String? {
            guard let first else { return second }
            guard let second else { return first }
            return first + "; " + second
        }
        return joined(joined(foreign, files), forwarding)
    }
}
