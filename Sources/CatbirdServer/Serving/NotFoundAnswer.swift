import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// The 404 of a request nothing answered, with its near misses (docs/matching.md#near-misses):
/// `{"error": true, "reason": "<one line>", "tenant": "…", "nearMisses": […], "matchingTenants": […]}`.
/// Built per unmatched request (never for a hit): the reason names the tenant, the request and
/// the closest mock with the fields that differ, and, for a request without a parallel id,
/// the tenants whose mocks match it.
struct NotFoundAnswer {
    /// The 404 response (`Content-Type` as every error's, ``APIError/headers``).
    let response: HTTPResponse
    /// The near misses as the journal's `near_misses` JSON array.
    let nearMissesJSON: String

    init(report: NearMissReport, method: String, target: String, tenant: TenantID) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let matching = report.matchingTenants.map(\.rawValue)
        let body = CatbirdNotFoundBody(
            reason: Self.reason(report: report, method: method, target: target, tenant: tenant), tenant: tenant.rawValue,
            nearMisses: report.nearMisses, matchingTenants: matching.isEmpty ? nil : matching)
        // The near misses hold strings and finite numbers only, which JSONEncoder always encodes.
        let bytes = (try? encoder.encode(body)).map(Array.init) ?? Array(CatbirdErrorBody(reason: body.reason).json.utf8)
        response = HTTPResponse(status: 404, headers: APIError.headers, body: bytes)
        nearMissesJSON = (try? encoder.encode(report.nearMisses)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    /// One line: `no mock matched GET /api/usres in tenant "s1"; the closest is mock 7 (GET
    /// equal "/api/users") of tenant "s1": url differs (expected …, got …)`.
    static func reason(report: NearMissReport, method: String, target: String, tenant: TenantID) -> String {
        let request = "\(method) \(target.count > 200 ? String(target.prefix(200)) + "…" : target)"
        let place = tenant.isDefault
            ? "the default tenant (the request has no X-Catbird-Parallel-Id)" : "tenant \(JSONText.string(tenant.rawValue))"
        var reason = "no mock matched \(request) in \(place)"
        if let closest = report.nearMisses.first {
            reason += "; the closest is \(closest.summary)"
        } else {
            reason += tenant.isDefault ? "; it has no mocks" : "; neither it nor the default tenant has mocks"
        }
        if !report.matchingTenants.isEmpty {
            let names = report.matchingTenants.map { JSONText.string($0.rawValue) }.joined(separator: ", ")
            reason += "; but tenant \(names) has a mock that matches it: is the app sending its parallel id"
                + " (an old launch argument or key)?"
        }
        return reason.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
    }
}
