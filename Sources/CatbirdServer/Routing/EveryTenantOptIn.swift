import CatbirdDomain
import CatbirdSupport

/// The explicit opt-in of the routes that act on every tenant at once (`DELETE
/// /catbird/api/tenants`, `DELETE /catbird/api/mocks`; docs/tenancy.md#admin): the query
/// parameter `all=true`, required with and without an admin token.
///
/// Being the admin is not enough on its own: without a token a request without
/// `X-Catbird-Parallel-Id` is the admin, and a shard whose id variable is unset sends no header
/// at all (curl drops `-H "X-Catbird-Parallel-Id: $SHARD"` when `$SHARD` is empty,
/// python-requests drops a `None` value), so its start-of-test cleanup wiped every shard
/// (tester finding try7a F7). The server cannot see a header that was never sent; an unset
/// variable cannot write `?all=true` into the path.
enum EveryTenantOptIn {
    /// The query parameter name, as the routes declare it.
    static let name = "all"

    /// Returns when `query` holds `all=true`.
    /// - Parameters:
    ///   - query: the route's query pairs (``RouteContext/query``).
    ///   - route: the route as written in the reason, e.g. `DELETE /catbird/api/tenants`.
    ///   - action: what the route does, e.g. "drops every tenant's mocks and journal".
    /// - Throws: 400 naming the parameter when it is missing or not `true`; nothing was done.
    static func require(in query: [(name: String, value: String)], route: String, action: String) throws(APIError) {
        let value = query.first { $0.name == name }?.value
        if value == "true" { return }
        let given = value.map { " (given: \(JSONText.shortString($0)))" } ?? ""
        throw .badRequest(
            "\(route) \(action), so it needs the explicit opt-in \(route)?\(name)=true\(given): nothing was done. "
                + "A call without \(TenantID.headerName) is the admin's, and a shard whose id variable is unset sends no header "
                + "(curl drops -H \"X-Catbird-Parallel-Id: $SHARD\" when SHARD is empty), so the header alone cannot tell "
                + "(docs/tenancy.md#admin)")
    }
}

/// What a route acting on every tenant says when it refuses a request (``Route/everyTenant``).
struct EveryTenantAction: Sendable {
    /// The admin action named to a caller that is not the admin, e.g. "dropping every tenant"
    /// (``AdminAccess/refusal(_:tenant:request:)``).
    let refusal: String
    /// What the route does, named by the opt-in's 400, e.g. "drops every tenant's mocks and
    /// journal" (``EveryTenantOptIn/require(in:route:action:)``).
    let action: String
}
