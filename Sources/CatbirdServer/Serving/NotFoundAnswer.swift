import CatbirdDomain
import CatbirdMatching
import CatbirdHTTP
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// The 404 of a request nothing answered, with its near misses (docs/matching.md#near-misses):
/// `{"error": true, "reason": "<one line>", "tenant": "…", "nearMisses": […], "matchingTenants": […]}`.
/// Built per unmatched request (never for a hit): the reason names the tenant, the request and
/// the closest mock with the fields that differ, and, for a request without a parallel id,
/// the tenants whose mocks match it; with an admin token set, it only says that another tenant
/// has one, naming none (docs/tenancy.md#ids-in-messages). Ids in the reason are cut
/// (``JSONText/shortString(_:maxBytes:)``), so are the request's url and header values (200
/// bytes), and the reason is bound at 8,000 bytes (``boundReason(from:in:)``); the JSON fields
/// keep them whole.
struct NotFoundAnswer {
    /// The 404 response (`Content-Type` as every error's, ``APIError/headers``).
    let response: HTTPResponse
    /// Where the near misses (the journal's `near_misses` JSON array) are in `response.body`.
    let nearMissesRange: Range<Int>
    /// The ``NotFoundMemo`` entry this answer came from when the memo answered it (its
    /// ``NotFoundMemo/sent(_:date:making:)`` keeps the entry's sent form per second); nil for an
    /// answer computed now.
    var memoEntry: NotFoundMemo.EntryPlace?

    /// - Parameters:
    ///   - namesOtherTenants: whether the answer may name the other tenants whose mocks match
    ///     (false with an admin token set: listing tenants is then the admin's alone).
    ///   - outOfTime: mocks skipped because their regular expression ran out of the request's
    ///     evaluation budget (docs/matching.md#evaluation-budget), named in the reason.
    ///   - modeHint: the reason's last part, from the modes the server runs in: with a mocks
    ///     directory, which file names were tried (``FileServing/missHint(for:)``); with a
    ///     forwarding mode that does not forward the request's form, which does
    ///     (``Forwarding/missHint(for:)``); nil without either.
    init(
        report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [SkippedMock] = [],
        modeHint: String? = nil
    ) {
        // The body's JSON written into one buffer (``CatbirdNotFoundBody``'s shape, keys
        // sorted): every unmatched request makes one. Each pattern's parts come written when
        // its mock was added (NearMissTexts), the request's method and target are escaped once
        // for the near misses (and once, cut, for the reason).
        var out = ByteWriter(capacity: 1920 + 4 * target.utf8.count)
        out.append(#"{"error":true,"#)
        if namesOtherTenants && !report.matchingTenants.isEmpty {
            out.append(#""matchingTenants":["#)
            for (index, other) in report.matchingTenants.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(other.rawValue)
            }
            out.append("],")
        }
        out.append(#""nearMisses":"#)
        let nearMissesStart = out.count
        out.append(UInt8(ascii: "["))
        var requestJSON = NearMissRequestJSON()
        // By index, each read in place: a copy of a near miss (its mock and comparison) retains
        // each of their references, which the worker threads share.
        for index in report.closest.indices {
            // The next near misses are left out once the array holds `nearMissesBytesLimit`.
            if index > 0 && out.count - nearMissesStart >= Self.nearMissesBytesLimit { break }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            // The mock's fields read in place too (a `let` of it was a copy per near miss).
            report.closest[index].comparison.writeNearMissJSON(
                to: &out, distance: report.closest[index].distance, mockId: report.closest[index].mock.id,
                position: report.closest[index].mock.position, tenant: report.closest[index].mock.tenant.rawValue,
                requestJSON: &requestJSON)
        }
        out.append(UInt8(ascii: "]"))
        nearMissesRange = nearMissesStart..<out.count
        // The reason escaped as it is written, straight into the body (one line: a CR or LF in
        // the target or a mock's texts becomes a space), not written whole and escaped after.
        out.append(#","reason":""#)
        let reasonStart = out.count
        Self.writeReason(
            report: report, method: method, target: target, tenant: tenant, namesOtherTenants: namesOtherTenants,
            outOfTime: outOfTime, modeHint: modeHint, to: &out)
        Self.markLookAlikes(from: reasonStart, in: &out)
        Self.boundReason(from: reasonStart, in: &out)
        out.append(#"","tenant":"#)
        out.appendJSONString(tenant.rawValue)
        out.append(UInt8(ascii: "}"))
        response = HTTPResponse(status: 404, headers: APIError.headers, body: out.bytes())
    }

    /// The reason, one line once its CR and LF bytes are spaces: `no mock matched GET /api/usres
    /// in tenant "s1"`, the report's used-up mock that matches it (``UsedUpMock/hint``) when
    /// there is one, `; the closest is mock 7 (GET equal "/api/users") of tenant "s1": url differs
    /// (expected …, got …)`, the ``PercentEncodingHint`` of the first near miss that has one
    /// (another than the closest named: `mock 8 (another near miss): its url differs only in …`),
    /// the ``NearMissHints``, then, for each mock in `outOfTime`, `; ` and its
    /// ``outOfTimeSummary(_:for:)``, then `; ` and `modeHint` when given. Written into `out` as
    /// the text of a JSON string, each piece escaped as it is written
    /// (``ByteWriter/appendJSONStringContent(_:lineBreaksAsSpaces:nested:)``, the quotes around
    /// it the caller's): the bytes of the whole one-line text escaped at once, without it being
    /// made first. Not bounded: the caller bounds it (``boundReason(from:in:)``).
    static func writeReason(
        report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [SkippedMock] = [],
        modeHint: String? = nil, to out: inout ByteWriter
    ) {
        writeUnmatched(method: method, target: target, tenant: tenant, to: &out)
        if let usedUp = report.usedUp { appendClause(usedUp.hint, to: &out) }
        if !report.closest.isEmpty {
            out.append("; the closest is ")
            report.closest[0].comparison.writeSummary(
                mockId: report.closest[0].mock.id, tenant: report.closest[0].mock.tenant.rawValue, to: &out)
            if let sameRoute = report.sameRoute {
                out.append("; the mock whose method and url match is ")
                sameRoute.comparison.writeSummary(mockId: sameRoute.mock.id, tenant: sameRoute.mock.tenant.rawValue, to: &out)
            }
            // For the first near miss it fits, closest or not: a byte distance makes one letter
            // sent percent-encoded six edits, so a sibling mock may tie the one the app means
            // (tester finding tester63b-F2: `/api/cafe` tied `/api/café` for `/api/caf%C3%A9`, and the hint was lost).
            // By index: a copy of a near miss retains its mock and comparison (NearMissHints).
            for index in report.closest.indices {
                guard let hint = PercentEncodingHint.hint(report.closest[index].mock, target: target) else { continue }
                appendClause(index == 0 ? hint : "mock \(report.closest[index].mock.id) (another near miss): " + hint, to: &out)
                break
            }
            for hint in NearMissHints.hints(report, method: method, target: target) { appendClause(hint, to: &out) }
            if let difference = report.bodyDifference {
                appendClause("mock \(difference.mockID)'s \(difference.text)", to: &out)
            }
        } else {
            out.append(tenant.isDefault ? "; it has no mocks" : "; neither it nor the default tenant has mocks")
        }
        if let cutShort = report.cutShort { appendClause(Self.cutShortClause(cutShort, report: report), to: &out) }
        if !report.matchingTenants.isEmpty {
            let several = namesOtherTenants && (report.matchingTenants.count > 1 || report.moreMatchingTenants)
            let more = report.moreMatchingTenants ? " and others (only \(MockStore.matchingTenantLimit) are named, by id, those whose mock matching it is a catch-all last)" : ""
            let owner = namesOtherTenants
                ? (several ? "tenants " : "tenant ") + report.matchingTenants.map { JSONText.shortString($0.rawValue) + $0.lookAlikeNote }.joined(separator: ", ") + more
                : "another tenant (not named: an admin token is set)"
            appendClause("but \(owner) \(several ? "have mocks" : "has a mock") that match\(several ? "" : "es") it: is the app sending its parallel id"
                + " (an old launch argument or key)?", to: &out)
        } else if report.otherTenantsOverAllowance {
            appendClause("other tenants' mocks were not searched for one that matches it (these searches, for requests without a "
                + "parallel id, may take \(Int(CrossTenantSearchAllowance.perSecond.milliseconds)) ms of the server's time each second, "
                + "and had taken it this second)", to: &out)
        } else if !report.searchedOtherTenants {
            appendClause("other tenants' mocks were not searched fully for one that matches it (the search stops after "
                + "\(Int(MockStore.matchingTenantTimeLimit.milliseconds)) ms)", to: &out)
        } else if report.otherTenantsPastLimit {
            appendClause("only the first \(MockStore.nearMissTenantLimit) tenants by id holding mocks were searched for one "
                + "that matches it; others were not", to: &out)
        }
        for skipped in outOfTime.prefix(Self.outOfTimeShown) { appendClause(outOfTimeSummary(skipped, for: tenant), to: &out) }
        if outOfTime.count > Self.outOfTimeShown {
            appendClause("and \(outOfTime.count - Self.outOfTimeShown) more mocks were skipped the same way", to: &out)
        }
        if let modeHint { appendClause(modeHint, to: &out) }
    }

    /// Appends `; ` and `clause` to a reason being written (``writeReason(report:method:target:tenant:namesOtherTenants:outOfTime:modeHint:to:)``):
    /// escaped as the text of a JSON string, CR and LF as spaces.
    static func appendClause(_ clause: String, to out: inout ByteWriter) {
        out.append("; ")
        out.appendJSONStringContent(clause, lineBreaksAsSpaces: true)
    }

    /// `the near-miss search stopped at its budget per 404, after looking at 1490 of the 20000
    /// mocks (docs/matching.md#near-misses): a mock closer than those named may exist` (or `at its
    /// 50 ms time limit`): a search cut short says so rather than passing off the closest it
    /// found as the closest there is (try10b F4).
    static func cutShortClause(_ cutShort: NearMissReport.CutShort, report: NearMissReport) -> String {
        let limit = switch cutShort {
        case .budget: "its budget per 404"
        case .timeLimit: "its \(Int(MockStore.nearMissTimeLimit.milliseconds)) ms time limit"
        }
        return "the near-miss search stopped at \(limit), after looking at \(report.lookedAt) of the \(report.mockCount) mocks "
            + "(docs/matching.md#near-misses): a mock closer than those named may exist"
    }

    /// The reason's first part: `no mock matched GET /api/usres in tenant "s1"` (the method and
    /// the target each cut after 200 bytes; `in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty)`),
    /// written as the text of a JSON string (as ``writeReason(report:method:target:tenant:namesOtherTenants:outOfTime:modeHint:to:)``).
    static func writeUnmatched(method: String, target: String, tenant: TenantID, to out: inout ByteWriter) {
        out.append("no mock matched ")
        // The method is cut as the target is (tester finding tester48a-F5: a 20,000-byte method,
        // a legal token, filled the whole 8,000-byte reason).
        appendCut(method, to: &out)
        out.append(UInt8(ascii: " "))
        appendCut(target, to: &out)
        if tenant.isDefault {
            out.append(" in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty)")
        } else {
            out.append(" in tenant ")
            JSONText.appendShortString(tenant.rawValue, nested: true, to: &out)
            out.append(utf8: tenant.lookAlikeNote)
        }
    }

    /// Appends `part` as the text of a JSON string, cut after 200 bytes with `…`, line breaks
    /// as spaces.
    private static func appendCut(_ part: String, to out: inout ByteWriter) {
        if part.utf8.count > 200 {
            out.appendJSONStringContent(part.utf8Prefix(200) + "…", lineBreaksAsSpaces: true)
        } else {
            out.appendJSONStringContent(part, lineBreaksAsSpaces: true)
        }
    }

    /// Bytes of near misses after which no further one is written: 64 KiB (the first is always
    /// written; each lists at most ``CompiledRequestPattern/shownFieldLimit`` fields).
    static let nearMissesBytesLimit = 64 * 1024

    /// Mocks skipped for their regular expression's overrun that a 404's reason names at most: 3
    /// (the others are counted; each is in the log and the metric).
    static let outOfTimeShown = 3

    /// `mock 3 (GET regexp "^/(a+)+$") of tenant "s1" was skipped: its regular expression ran out of
    /// the 100 ms evaluation budget` (docs/matching.md#evaluation-budget); when the budget's wall
    /// cap ended it (``SkippedMock/starvedAfter``), `… ran out of the 100 ms evaluation budget's
    /// wall-time cap: 3 s passed while the busy machine gave the matching thread 52 ms of CPU (…)`. The mock's header and
    /// body regular expressions are named too (`mock 7 (POST equal "/b", body regexp "(a|aa)+$")…`),
    /// so an overrun of any of them can be found. A default-tenant mock marked slow that
    /// `tenant`'s request (another tenant's) gave at most 1 ms instead (``SkippedMock/charged``) (tester finding try9b F7,
    /// docs/tenancy.md#slow-regular-expressions) ends `… of the default tenant was skipped: its regular
    /// expression was found slow, and the default tenant's slow expressions get at
    /// most 1 ms of another tenant's request (one such request a second gives it the whole
    /// budget on the matching lane: docs/tenancy.md#slow-regular-expressions)`.
    static func outOfTimeSummary(_ skipped: SkippedMock, for tenant: TenantID) -> String {
        let mock = skipped.mock
        let pattern = mock.pattern.source
        var summary = "mock \(mock.id) (\(pattern.method.rawValue) \(pattern.url.kind.rawValue) \(JSONText.shortString(pattern.url.value))"
        for (name, header) in pattern.headers.sorted(by: { $0.key < $1.key }) where header.kind == .regexp {
            summary += ", header \(JSONText.shortString(name)) regexp \(JSONText.shortString(header.value))"
        }
        if let body = pattern.body {
            summary += ", body \(body.kind.rawValue) \(JSONText.shortString(body.value))"
        }
        // A body pattern of another kind runs out of the budget too (a pass over the body not started).
        let what = pattern.body.map { $0.kind != .regexp } ?? false ? "its regular expression or body pattern" : "its regular expression"
        if skipped.charged && mock.tenant.isDefault && !tenant.isDefault {
            return summary + ") of the default tenant was skipped: its regular expression was found slow, and the default "
                + "tenant's slow expressions get at most \(Int(RegexpSlice.length.milliseconds)) ms of another tenant's request "
                + "(one such request a second gives it the whole budget on the matching lane: docs/tenancy.md#slow-regular-expressions)"
        }
        let budget = "\(Int(MockStore.requestBudget.milliseconds)) ms evaluation budget"
        if let worked = skipped.starvedAfter {
            let cap = MockStore.requestBudget * WholeBudget.wallCap
            return summary + ") of \(mock.tenant.named) was skipped: \(what) ran out of the \(budget)'s wall-time cap: "
                + "\(cap.components.seconds) s passed while the busy machine gave the matching thread \(Int(worked.milliseconds)) ms of CPU "
                + "(docs/matching.md#evaluation-budget)"
        }
        return summary + ") of \(mock.tenant.named) was skipped: \(what) ran out of the \(budget)"
    }

    /// The first ``outOfTimeShown`` of `skipped` as ``outOfTimeSummary(_:for:)`` writes them,
    /// `; ` between, then `; and 97 more mocks were skipped the same way` for the others.
    static func outOfTimeSummaries(_ skipped: [SkippedMock], for tenant: TenantID) -> String {
        var named = skipped.prefix(outOfTimeShown).map { outOfTimeSummary($0, for: tenant) }.joined(separator: "; ")
        if skipped.count > outOfTimeShown {
            named += "; and \(skipped.count - outOfTimeShown) more mocks were skipped the same way"
        }
        return named
    }
}
