import CatbirdDomain
import CatbirdHTTP

/// Tenants (spec part 3):
/// - `GET /catbird/api/tenants` → `{"tenants": [TenantSummary]}`
/// - `DELETE /catbird/api/tenants/{id}` → 204, or 404 when no such tenant; drops its mocks and
///   journal. The default tenant has no id to put in a path: `DELETE /catbird/api/tenants/`
///   followed by nothing is not a route; empty it with `removeAll` and `DELETE /catbird/api/requests`.
/// - `DELETE /catbird/api/tenants` → 204: every tenant's mocks and journal (admin action).
enum TenantRoutes {
    static func routes(_ services: Services) -> [Route] {
        [
            Route("GET", "/catbird/api/tenants") { _ throws(APIError) in
                try storage(services) { JSONBody.response(["tenants": try services.tenants.list()]) }
            },
            Route("DELETE", "/catbird/api/tenants") { _ throws(APIError) in
                try storage(services) {
                    try services.tenants.dropAll()
                    return HTTPResponse(status: 204)
                }
            },
            Route("DELETE", "/catbird/api/tenants/", hasParameter: true) { context throws(APIError) in
                let tenant = TenantID(context.parameter ?? "")
                return try storage(services) {
                    guard try services.tenants.drop(tenant) else {
                        throw APIError(status: 404, reason: "no tenant \(JSONBody.quoted(tenant.rawValue))")
                    }
                    return HTTPResponse(status: 204)
                }
            },
        ]
    }
}
