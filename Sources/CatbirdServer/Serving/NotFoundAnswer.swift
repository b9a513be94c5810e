import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
@_spi(Server) import CatbirdWire

/// The 404 of a request nothing answered, with its near misses (docs/matching.md#near-misses):
/// `{"error": true, "reason": "<one line>", "tenant": "…", "nearMisses": […], "matchingTenants": […]}`.
/// Built per unmatched request (never for a hit): the reason names the tenant, the request and
/// the closest mock with the fields that differ, and, for a request without a parallel id,
/// the tenants whose mocks match it; with an admin token set, it only says that another tenant
/// has one, naming none (docs/tenancy.md#ids-in-messages). Ids in the reason are cut
/// (``JSONText/shortString(_:maxCharacters:)``); the JSON fields keep them whole.
struct NotFoundAnswer {
    /// The 404 response (`Content-Type` as every error's, ``APIError/headers``).
    let response: HTTPResponse
    /// Where the near misses (the journal's `near_misses` JSON array) are in `response.body`.
    let nearMissesRange: Range<Int>

    /// - Parameters:
    ///   - namesOtherTenants: whether the answer may name the other tenants whose mocks match
    ///     (false with an admin token set: listing tenants is then the admin's alone).
    ///   - outOfTime: mocks skipped because their regular expression ran out of the request's
    ///     evaluation budget (docs/matching.md#evaluation-budget), named in the reason.
    ///   - filesHint: with a mocks directory, which file names were tried
    ///     (``FileServing/missHint(for:)``), the reason's last part; nil without one.
    init(
        report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [Mock] = [],
        filesHint: String? = nil
    ) {
        let matching = namesOtherTenants ? report.matchingTenants.map(\.rawValue) : []
        let body = CatbirdNotFoundBody(
            reason: Self.reason(
                report: report, method: method, target: target, tenant: tenant, namesOtherTenants: namesOtherTenants,
                outOfTime: outOfTime, filesHint: filesHint),
            tenant: tenant.rawValue,
            nearMisses: report.nearMisses, matchingTenants: matching.isEmpty ? nil : matching)
        // The request's method and target as JSON strings once, not once per near miss; each
        // pattern's parts as written when its mock was added (NearMissTexts).
        var methodJSON: [UInt8] = []
        JSONText.appendString(method, to: &methodJSON)
        var targetJSON: [UInt8] = []
        JSONText.appendString(target, to: &targetJSON)
        var nearMisses: [UInt8] = [UInt8(ascii: "[")]
        nearMisses.reserveCapacity(1024 + 3 * targetJSON.count)
        for (index, nearMiss) in report.nearMisses.enumerated() {
            if index > 0 { nearMisses.append(UInt8(ascii: ",")) }
            let texts = report.texts[index]
            nearMiss.writeJSON(to: &nearMisses, prewritten: CatbirdNearMiss.PrewrittenJSON(
                pattern: texts.patternJSON, fieldParts: texts.fieldPartsJSON, method: methodJSON, target: targetJSON))
        }
        nearMisses.append(UInt8(ascii: "]"))
        let (bytes, range) = body.jsonLocatingNearMisses(nearMisses)
        nearMissesRange = range
        response = HTTPResponse(status: 404, headers: APIError.headers, body: bytes)
    }

    /// One line: `no mock matched GET /api/usres in tenant "s1"; the closest is mock 7 (GET
    /// equal "/api/users") of tenant "s1": url differs (expected …, got …)`, then, for each mock in
    /// `outOfTime`, `; ` and its ``outOfTimeSummary(_:)``, then `; ` and `filesHint` when given.
    static func reason(
        report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [Mock] = [],
        filesHint: String? = nil
    ) -> String {
        // Written as UTF-8 into one buffer: the reason is built for every unmatched request.
        var reason: [UInt8] = []
        reason.reserveCapacity(384 + min(target.utf8.count, 1024))
        reason.append("no mock matched ")
        reason.append(method)
        reason.append(" ")
        // At most 200 bytes are at most 200 characters: counted only for a longer target.
        if target.utf8.count > 200 && target.count > 200 {
            reason.append(String(target.prefix(200)) + "…")
        } else {
            reason.append(target)
        }
        reason.append(tenant.isDefault
            ? " in the default tenant (the request has no X-Catbird-Parallel-Id)"
            : " in tenant " + JSONText.shortString(tenant.rawValue))
        if let closest = report.nearMisses.first {
            reason.append("; the closest is ")
            closest.writeSummary(patternSummary: report.texts[0].summary, to: &reason)
        } else {
            reason.append(tenant.isDefault ? "; it has no mocks" : "; neither it nor the default tenant has mocks")
        }
        if !report.matchingTenants.isEmpty {
            let owner = namesOtherTenants
                ? "tenant " + report.matchingTenants.map { JSONText.shortString($0.rawValue) }.joined(separator: ", ")
                : "another tenant (not named: an admin token is set)"
            reason.append("; but \(owner) has a mock that matches it: is the app sending its parallel id"
                + " (an old launch argument or key)?")
        }
        for mock in outOfTime.prefix(Self.outOfTimeShown) { reason.append("; " + outOfTimeSummary(mock)) }
        if outOfTime.count > Self.outOfTimeShown {
            reason.append("; and \(outOfTime.count - Self.outOfTimeShown) more mocks were skipped the same way")
        }
        if let filesHint { reason.append("; " + filesHint) }
        // One line: a CR or LF in the target or a mock's texts becomes a space.
        for index in reason.indices where reason[index] == 10 || reason[index] == 13 { reason[index] = 32 }
        return String(decoding: reason, as: UTF8.self)
    }

    /// Mocks skipped for their regular expression's overrun that a 404's reason names at most: 3
    /// (the others are counted; each is in the log and the metric).
    static let outOfTimeShown = 3

    /// `mock 3 (GET regexp "^/(a+)+$") of tenant "s1" was skipped: its regular expression ran out of
    /// the 100 ms evaluation budget` (docs/matching.md#evaluation-budget). The mock's header and
    /// body regular expressions are named too (`mock 7 (POST equal "/b", body regexp "(a|aa)+$")…`),
    /// so an overrun of any of them can be found.
    static func outOfTimeSummary(_ mock: Mock) -> String {
        let pattern = mock.pattern.source
        var summary = "mock \(mock.id) (\(pattern.method.rawValue) \(pattern.url.kind.rawValue) \(JSONText.shortString(pattern.url.value))"
        for (name, header) in pattern.headers.sorted(by: { $0.key < $1.key }) where header.kind == .regexp {
            summary += ", header \(JSONText.shortString(name)) regexp \(JSONText.shortString(header.value))"
        }
        if let body = pattern.body, body.kind == .regexp {
            summary += ", body regexp \(JSONText.shortString(body.value))"
        }
        return summary + ") of tenant \(JSONText.shortString(mock.tenant.rawValue)) was skipped: its regular expression ran out of the "
            + "\(Int(MockStore.requestBudget.milliseconds)) ms evaluation budget"
    }
}

extension [UInt8] {
    /// Appends the text's UTF-8 bytes.
    fileprivate mutating func append(_ text: String) {
        append(contentsOf: text.utf8)
    }
}
