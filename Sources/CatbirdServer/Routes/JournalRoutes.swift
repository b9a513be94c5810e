import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// The tenant's request journal (docs/protocol.md#journal, docs/protocol.md#count):
/// - `GET /catbird/api/requests?since=&before=&order=&limit=&method=&url=&status=&answeredBy=&bodies=&wait=`
///   → ``CatbirdRequestPage`` (`nextSince` always present, `newestId` and `serverRun` for a client
///   that follows the journal: ``JournalFollowing``; `mockId` `null` when no mock answered;
///   `order=newest` with `before=` pages back from the newest entry; `wait=` seconds, 0–60, holds
///   an empty answer until an entry matches: ``JournalLongPoll``); with a filter (`method`,
///   `url`, `status`, `answeredBy`) a page may read the whole journal, and a page of more than
///   ``quickPageLimit`` entries is long to build, so either runs on the slow lane, admitted
///   like a count (its looks, with `wait=`, one of the tenant's at a time); a filtered one is
///   stopped after ``Journal/defaultCountTimeLimit`` with a 400 (docs/tenancy.md#fair-shares)
/// - `DELETE /catbird/api/requests` → `{"deleted": n}`; with an admin token, the default tenant's
///   only for the admin (401 otherwise, ``AdminAccess/sharedJournalRefusal(tenant:isAdmin:request:)``)
/// - `POST /catbird/api/requests/count` with `{"pattern": RequestPattern}` → `{"count": n}`, the
///   mocks' matching rules (a header pattern matches the header's first value); 400 when
///   matching takes longer than ``Journal/defaultCountTimeLimit`` (a catastrophic regexp)
/// - `GET /catbird/api/requests/unmatched?…` (the listing's parameters but `wait` and
///   `answeredBy`) → ``CatbirdRequestPage`` of the requests nothing answered, each with its
///   near misses (docs/matching.md#near-misses)
/// - `POST /catbird/api/requests/find` with `{"pattern": RequestPattern, "since", "before",
///   "from", "until", "limit", "bodies"}` → ``CatbirdRequestPage`` of the matching entries,
///   oldest first (docs/protocol.md#find); 400 as for count, and for a bad bound
enum JournalRoutes {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            // A filter may read the whole journal for a page, and a page of more than
            // `quickPageLimit` entries takes up to seconds to read and write (try7b F2): slow
            // work (docs/tenancy.md#fair-shares), run on the slow lane and admitted like a count
            // when answered at once. Any other listing is answered by a long poll, whose looks,
            // like a wait's, are not admitted (slow ones run one of the tenant's at a time).
            Route("GET", "/catbird/api/requests", query: journalQueryNames, lane: { context in
                let asked = try listing(context)
                return asked.wait == .zero && asked.work == .slow ? .slow : .worker
            }, answer: { context in
                let (query, wait, work) = try listing(context)
                // A long poll parks its connection for up to `wait`: one of its tenant's places
                // (``ParkedRequests``; a 429 at once past them). A listing is short work.
                let place = wait == .zero ? nil : try dependencies.parkedRequests.admitting(context.tenant)
                let poll = JournalLongPoll(
                    dependencies: dependencies, lane: work == .slow ? context.slowLooks : context.quickLooks,
                    largePages: work == .slow ? nil : context.lane(.bulk), tenant: context.tenant,
                    query: query, deadline: ContinuousClock.now + wait, hiddenAtStart: dependencies.journal.deletions.hiddenThrough(context.tenant))
                // A listing is answered whatever the client does; a long poll (`wait=`) only
                // serves its client, whose FIN ends it (docs/protocol.md#delays).
                let answer = HTTPAnswer.later(watching: wait == .zero ? .resetOnly : .endOfStream) { responder in poll.start(responder) }
                return place.map { ParkedRequests.holding($0, answer) } ?? answer
            }) { context in
                let page = try dependencies.journal.encodedPage(of: context.tenant, try listing(context).query)
                return try JournalFollowing.answer(page, tenant: context.tenant, dependencies)
            },
            // With an admin token, the default tenant's journal (shared as its mocks are) is the
            // admin's to clear: refused where its lane is chosen, before admission, so a refused
            // caller gets its 401 at once, not a slow-lane slot's wait or the share's 429.
            Route("DELETE", "/catbird/api/requests", lane: { context in
                if let refusal = dependencies.admin.sharedJournalRefusal(
                    tenant: context.tenant, isAdmin: context.isAdmin, request: context.request) { throw refusal }
                return .drop
            }, answer: { _ in throw APIError.notFound }) { context in
                JSONBody.response(["deleted": try FullDiskDeletion.refusing("the journal clear") { try dependencies.journal.clear(context.tenant) }])
            },
            Route("POST", "/catbird/api/requests/count", lane: .slow) { context in
                let body = try JSONBody.decode(CatbirdCountRequest.self, from: context.request)
                let (pattern, timeLimit) = try compiled(body.pattern)
                let count = try dependencies.journal.count(of: context.tenant, matching: pattern, timeLimit: timeLimit)
                let cut = try dependencies.journal.cutBodyMatches(of: context.tenant, matching: pattern)
                // Retention deleted some of the tenant's entries: the count misses any of them
                // that matched, which the answer says (docs/operations.md#retention).
                let pruned = dependencies.journal.pruned.through(context.tenant)
                let refused = try dependencies.journal.refusedBodyMatches(of: context.tenant, matching: pattern)
                let warnings = NeverMatchingMock.journalPatternWarnings(for: body.pattern, admin: dependencies.admin) + [cut, refused].compactMap { $0?.warning }
                return JSONBody.response(CatbirdCountAnswer(
                    count: count, cutBodyMatches: cut?.count, warnings: warnings.isEmpty ? nil : warnings,
                    prunedThrough: pruned > 0 ? Int64(pruned) : nil))
            },
            Route("GET", "/catbird/api/requests/unmatched", query: unmatchedQueryNames, lane: .slow) { context in
                var query = try journalQuery(from: context.query)
                query.unmatchedOnly = true
                return JSONBody.page(try dependencies.journal.encodedPage(of: context.tenant, query))
            },
            Route("POST", "/catbird/api/requests/find", lane: .slow) { context in
                let body = try JSONBody.decode(CatbirdFindRequest.self, from: context.request)
                let query = try findQuery(body)
                let (pattern, timeLimit) = try compiled(body.pattern)
                var page = try dependencies.journal.find(of: context.tenant, matching: pattern, query, timeLimit: timeLimit)
                var warnings = NeverMatchingMock.journalPatternWarnings(for: body.pattern, admin: dependencies.admin)
                if let cut = try dependencies.journal.cutBodyMatches(
                    of: context.tenant, matching: pattern, after: query.page.since ?? 0, bounds: query)
                {
                    page.appendMember("cutBodyMatches", json: String(cut.count))
                    warnings.append(cut.warning)
                }
                if let refused = try dependencies.journal.refusedBodyMatches(
                    of: context.tenant, matching: pattern, after: query.page.since ?? 0, bounds: query)
                {
                    warnings.append(refused.warning)
                }
                if !warnings.isEmpty { page.appendMember("warnings", json: "[" + warnings.map(JSONText.string).joined(separator: ",") + "]") }
                return JSONBody.page(page)
            },
        ]
    }

    /// A count's or find's pattern compiled, and what is left of ``Journal/defaultCountTimeLimit``
    /// after compiling it: the compile counts within the query's time limit (try9b F13: a 4 MB
    /// expression compiled for 3.6 to 4.3 s before a 2-second limit began).
    /// - Throws: ``PatternError`` for expressions longer than ``MockPatternLimits/maxExpressionBytes``
    ///   together (before anything is compiled), a `json` body value that is not JSON
    ///   (``BodyPatternCheck``), or one that does not compile.
    static func compiled(_ source: RequestPattern) throws(PatternError) -> (pattern: CompiledRequestPattern, timeLimit: Duration) {
        let began = ContinuousClock.now
        try MockPatternLimits.checkExpressions(source)
        try BodyPatternCheck.check(source)
        let pattern = try CompiledRequestPattern(source)
        return (pattern, Journal.defaultCountTimeLimit - (ContinuousClock.now - began))
    }

    /// The listing's query, its `wait`, and the lane of its looks: ``ControlLane/slow`` for a
    /// filtered page or one of more than ``quickPageLimit`` entries, else ``ControlLane/quick``.
    /// A slow page answered at once runs on the slow lane, admitted; every other listing is a
    /// long poll (``JournalLongPoll``) whose looks run on `work`'s lane.
    /// - Throws: 400 naming the parameter when a value is not of its type.
    static func listing(_ context: RouteContext) throws(APIError) -> (query: JournalQuery, wait: Duration, work: ControlLane) {
        let query = try journalQuery(from: context.query)
        let wait = try longPollWait(from: context.query)
        return (query, wait, query.filtersRows || query.limit > quickPageLimit ? .slow : .quick)
    }

    /// Entries a journal page without a filter may hold and still be built on the quick lane:
    /// 100 (the default page). A page of up to 1,000 entries with their bodies and near misses
    /// (up to 4 MiB of JSON, 0.4 to 2 s over a large journal) runs on the slow lane, admitted
    /// like a count, so that two tenants paging their journals do not hold both quick threads
    /// while a third tenant's `update` waits (docs/tenancy.md#fair-shares).
    static let quickPageLimit = JournalQuery.defaultLimit

    /// Bytes of JSON a journal page built on the quick lane is expected to take at most:
    /// 256 KiB (a few tens of milliseconds to build). A page of at most ``quickPageLimit``
    /// entries expected to be larger (``JournalPagePlan/expectedBytes``: 100 entries with 64-KiB
    /// request and response bodies are 4 MiB, 0.5 to 0.8 s) is built on the bulk lane, so that
    /// six tenants paging such journals no longer held both quick threads while another
    /// tenant's `update` waited 0.4 to 1.4 s (try9b F12; docs/tenancy.md#fair-shares).
    static let quickPageBytes = 256 << 10

    static let journalQueryNames = ["since", "before", "order", "limit", "method", "url", "status", "answeredBy", "bodies", "wait"]

    /// The unmatched listing's query parameters: the listing's but `wait` and `answeredBy`.
    static let unmatchedQueryNames = journalQueryNames.filter { $0 != "wait" && $0 != "answeredBy" }

    /// The find body's bounds as a journal query.
    /// - Throws: 400 naming the field when a bound is out of range or a time is not UTC ISO 8601.
    static func findQuery(_ body: CatbirdFindRequest) throws(APIError) -> JournalFindQuery {
        // Rounded up to the next whole millisecond when the text has digits past it: journal
        // times are whole milliseconds, so `>=` and `<` against that compare with the time as
        // given (tester finding T13B-F4: `…52.5971Z` was read as `…52.597Z`).
        func time(_ text: String?, _ name: String) throws(APIError) -> Int? {
            guard let text else { return nil }
            guard let milliseconds = Timestamp.millisecondsRoundedUp(from: text) else {
                throw .badRequest("'\(name)' must be a UTC time such as \"2026-11-30T18:31:34.225Z\" (or an RFC 3339 offset in place of Z, such as +01:00), not \(JSONBody.quoted(text))")
            }
            return milliseconds
        }
        // Journal times are compared as text, in which a bound past year 9999 (five digits) or
        // before 1970 sorts wrongly (tester finding tester20b-F2: Python's `datetime.max`, the
        // usual "no upper bound", as `until` found nothing): each is taken at the end of the
        // range it is past, where it means what it says.
        func bound(_ milliseconds: Int?) -> Date? {
            milliseconds.map { Date(timeIntervalSince1970: Double(min(max($0, 0), latestJournalTime)) / 1000) }
        }
        let from = try time(body.from, "from")
        let until = try time(body.until, "until")
        if let since = body.since, since < 0 { throw .badRequest("'since' must be a journal id (a whole number >= 0)") }
        if let before = body.before, before < 0 { throw .badRequest("'before' must be a journal id (a whole number >= 0)") }
        if let limit = body.limit, !(1...JournalQuery.maxLimit).contains(limit) {
            throw .badRequest("'limit' must be from 1 to \(JournalQuery.maxLimit), not \(limit)")
        }
        // As the listing's `order` (tester finding tester34a-F3: find answered `nextBefore` but
        // read oldest first only, so paging back with it found nothing).
        if let order = body.order, order != "oldest", order != "newest" {
            throw .badRequest("'order' must be \"oldest\" or \"newest\", not \(JSONBody.quoted(order))")
        }
        return JournalFindQuery(
            page: JournalQuery(
                since: body.since, before: body.before, newestFirst: body.order == "newest", limit: body.limit ?? JournalQuery.defaultLimit,
                includeBodies: body.bodies ?? true),
            from: (from ?? 0) <= 0 ? nil : bound(from),
            until: (until ?? Int.max) > latestJournalTime ? nil : bound(until))
    }

    /// The latest time a journal entry's `time` text can hold, in milliseconds since 1970:
    /// `9999-12-31T23:59:59.999Z`.
    static let latestJournalTime = 253_402_300_799_999

    /// Whether `text` is written as a whole number (an optional `-`, then digits), however large.
    static func isWholeNumber(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Parses the listing's query parameters.
    /// - Throws: 400 naming the parameter when a value is not of its type.
    static func journalQuery(from query: [(name: String, value: String)]) throws(APIError) -> JournalQuery {
        var result = JournalQuery()
        for (name, value) in query {
            switch name {
            case "since":
                guard let since = QueryParameters.wholeNumber(value) else {
                    throw QueryParameters.refusal(name, value, otherwise: "'since' must be a journal id (a whole number >= 0)")
                }
                result.since = since
            case "before":
                guard let before = QueryParameters.wholeNumber(value) else {
                    throw QueryParameters.refusal(name, value, otherwise: "'before' must be a journal id (a whole number >= 0)")
                }
                result.before = before
            case "order":
                guard value == "oldest" || value == "newest" else { throw .badRequest("'order' must be 'oldest' or 'newest'") }
                result.newestFirst = value == "newest"
            case "bodies":
                guard value == "true" || value == "false" else { throw .badRequest("'bodies' must be 'true' or 'false'") }
                result.includeBodies = value == "true"
            case "limit":
                guard let limit = QueryParameters.wholeNumber(value).map(Int.init), (1...JournalQuery.maxLimit).contains(limit) else {
                    throw .badRequest(
                        Self.isWholeNumber(value)
                            ? "'limit' must be from 1 to \(JournalQuery.maxLimit), not \(value)"
                            : "'limit' must be a whole number from 1 to \(JournalQuery.maxLimit)")
                }
                result.limit = limit
            case "method": result.method = value
            case "url": result.urlContains = value
            case "status":
                if let statusClass = statusClass(value) {
                    result.statusClass = statusClass
                } else {
                    guard let status = QueryParameters.wholeNumber(value).map(Int.init) else { throw .badRequest("'status' must be a whole number or a class such as 4xx") }
                    guard (100...599).contains(status) else {
                        // As sent: `099` is not echoed as `99` (T11-F10).
                        throw .badRequest("'status' must be an HTTP status from 100 to 599 or a class such as 4xx, not \(value)")
                    }
                    result.status = status
                }
            case "answeredBy":
                let answeredBy = CatbirdRequest.AnsweredBy(rawValue: value)
                guard CatbirdRequest.AnsweredBy.known.contains(answeredBy) else {
                    throw .badRequest(
                        "'answeredBy' must be one of \(CatbirdRequest.AnsweredBy.known.map(\.rawValue).joined(separator: ", "))")
                }
                result.answeredBy = answeredBy
            default:
                // `wait` (``longPollWait(from:)``); any name the route does not take was refused
                // by the route table (``Route/queryPairs(_:)``).
                break
            }
        }
        return result
    }
}

/// The listing's `wait` parameter: seconds (a decimal from 0 to ``JournalLongPoll/maxWait``)
/// to hold the answer until an entry after `since` matches; zero when absent.
/// - Throws: 400 naming the parameter when the value is not such a number: only digits with
///   at most one `.` (`2`, `0.5`, `.5`), as `limit` takes only digits; `Double` also read
///   `0x2`, `0x1p1` and `.5e1` (tester finding T15B-F14).
func longPollWait(from query: [(name: String, value: String)]) throws(APIError) -> Duration {
    guard let value = query.last(where: { $0.name == "wait" })?.value else { return .zero }
    let maxSeconds = JournalLongPoll.maxWait.components.seconds
    guard isPlainDecimal(value), let seconds = Double(value), seconds.isFinite, seconds >= 0, seconds <= Double(maxSeconds) else {
        throw .badRequest("'wait' must be a number of seconds from 0 to \(maxSeconds)")
    }
    return .milliseconds(Int64((seconds * 1000).rounded()))
}

/// Whether `text` is ASCII digits with at most one `.` and at least one digit (`2`, `0.5`,
/// `.5`, `2.`): no sign, exponent, hexadecimal form, space, `inf` or `nan`.
private func isPlainDecimal(_ text: String) -> Bool {
    var digits = 0
    var points = 0
    for byte in text.utf8 {
        if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            digits += 1
        } else if byte == UInt8(ascii: "."), points == 0 {
            points += 1
        } else {
            return false
        }
    }
    return digits > 0
}

/// The class digit of a status class such as `4xx` (`1xx` to `5xx`, `x` in any case), or nil.
private func statusClass(_ value: String) -> Int? {
    let bytes = Array(value.utf8)
    guard bytes.count == 3, (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(bytes[0]),
          bytes[1...].allSatisfy({ $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") })
    else { return nil }
    return Int(bytes[0] - UInt8(ascii: "0"))
}
