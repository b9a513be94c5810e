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
    /// The near misses as the journal's `near_misses` JSON array.
    let nearMissesJSON: String

    /// - Parameters:
    ///   - namesOtherTenants: whether the answer may name the other tenants whose mocks match
    ///     (false with an admin token set: listing tenants is then the admin's alone).
    ///   - outOfTime: mocks skipped because their regular expression ran out of the request's
    ///     evaluation budget (docs/matching.md#evaluation-budget), named in the reason.
    init(report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [Mock] = []) {
        let matching = namesOtherTenants ? report.matchingTenants.map(\.rawValue) : []
        let body = CatbirdNotFoundBody(
            reason: Self.reason(
                report: report, method: method, target: target, tenant: tenant, namesOtherTenants: namesOtherTenants,
                outOfTime: outOfTime),
            tenant: tenant.rawValue,
            nearMisses: report.nearMisses, matchingTenants: matching.isEmpty ? nil : matching)
        var nearMisses: [UInt8] = []
        CatbirdNearMiss.writeJSON(report.nearMisses, to: &nearMisses)
        nearMissesJSON = String(decoding: nearMisses, as: UTF8.self)
        response = HTTPResponse(status: 404, headers: APIError.headers, body: body.json(nearMissesJSON: nearMisses))
    }

    /// One line: `no mock matched GET /api/usres in tenant "s1"; the closest is mock 7 (GET
    /// equal "/api/users") of tenant "s1": url differs (expected …, got …)`, then, for each mock in
    /// `outOfTime`, `; ` and its ``outOfTimeSummary(_:)``.
    static func reason(
        report: NearMissReport, method: String, target: String, tenant: TenantID, namesOtherTenants: Bool, outOfTime: [Mock] = []
    ) -> String {
        let request = "\(method) \(target.count > 200 ? String(target.prefix(200)) + "…" : target)"
        let place = tenant.isDefault
            ? "the default tenant (the request has no X-Catbird-Parallel-Id)" : "tenant \(JSONText.shortString(tenant.rawValue))"
        var reason = "no mock matched \(request) in \(place)"
        if let closest = report.nearMisses.first {
            reason += "; the closest is \(closest.summary)"
        } else {
            reason += tenant.isDefault ? "; it has no mocks" : "; neither it nor the default tenant has mocks"
        }
        if !report.matchingTenants.isEmpty {
            let owner = namesOtherTenants
                ? "tenant " + report.matchingTenants.map { JSONText.shortString($0.rawValue) }.joined(separator: ", ")
                : "another tenant (not named: an admin token is set)"
            reason += "; but \(owner) has a mock that matches it: is the app sending its parallel id"
                + " (an old launch argument or key)?"
        }
        for mock in outOfTime { reason += "; " + outOfTimeSummary(mock) }
        // One line: a CR or LF in the target or a mock's texts becomes a space.
        guard reason.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return reason }
        return String(decoding: reason.utf8.map { $0 == 10 || $0 == 13 ? 32 : $0 }, as: UTF8.self)
    }

    /// `mock 3 (GET regexp "^/(a+)+$") of tenant "s1" was skipped: its regular expression ran out of
    /// the 100 ms evaluation budget` (docs/matching.md#evaluation-budget).
    static func outOfTimeSummary(_ mock: Mock) -> String {
        let pattern = mock.pattern.source
        return "mock \(mock.id) (\(pattern.method.rawValue) \(pattern.url.kind.rawValue) \(JSONText.string(pattern.url.value))) of tenant "
            + "\(JSONText.shortString(mock.tenant.rawValue)) was skipped: its regular expression ran out of the "
            + "\(Int(MockStore.requestBudget.milliseconds)) ms evaluation budget"
    }
}
