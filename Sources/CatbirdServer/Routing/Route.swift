import CatbirdDomain
import CatbirdHTTP

/// What a route handler gets: the request and the tenant it is scoped to.
struct RouteContext: Sendable {
    let request: HTTPRequest
    /// From `X-Catbird-Parallel-Id`; the default tenant when absent or empty.
    let tenant: TenantID
    /// The path segments after the route's prefix, percent-decoded (e.g. a tenant id).
    var parameter: String?
}

/// A control or admin endpoint under `/catbird`.
struct Route: Sendable {
    let method: String
    /// The exact path, or a prefix ending in `/` when `hasParameter` is set.
    let path: String
    let hasParameter: Bool
    let handler: @Sendable (RouteContext) throws(APIError) -> HTTPResponse

    init(_ method: String, _ path: String, hasParameter: Bool = false,
         _ handler: @escaping @Sendable (RouteContext) throws(APIError) -> HTTPResponse) {
        self.method = method
        self.path = path
        self.hasParameter = hasParameter
        self.handler = handler
    }

    /// The parameter (percent-decoded) when `path` matches this route, `""` for an exact match,
    /// or nil when it does not match.
    func match(_ requestPath: Substring) -> String? {
        if !hasParameter { return requestPath == path ? "" : nil }
        guard requestPath.hasPrefix(path), requestPath.count > path.count else { return nil }
        let raw = requestPath.dropFirst(path.count)
        return raw.removingPercentEncoding ?? String(raw)
    }
}

/// The `/catbird` route table: finds the route, answers 405 for a known path with another
/// method, 404 otherwise.
struct RouteTable: Sendable {
    let routes: [Route]

    func respond(to request: HTTPRequest, tenant: TenantID) -> HTTPResponse {
        var allowed: [String] = []
        for route in routes {
            guard let parameter = route.match(request.path) else { continue }
            guard route.method == request.method else { allowed.append(route.method); continue }
            do {
                return try route.handler(RouteContext(request: request, tenant: tenant, parameter: parameter))
            } catch {
                return error.response
            }
        }
        return allowed.isEmpty ? APIError.notFound.response : APIError.methodNotAllowed(allowed.joined(separator: ", ")).response
    }
}

import Foundation
