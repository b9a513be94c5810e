import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport
import Foundation

/// Tenants (docs/protocol.md#tenants-and-health, docs/tenancy.md#admin), with shard isolation: a request carrying a non-empty
/// `X-Catbird-Parallel-Id: P` comes from shard P and sees or drops tenant P only; the admin
/// (``AdminAccess``: without a token, a request without the header; with one, its bearer) sees
/// or drops any tenant. Refusals are 403, or 401 when an admin token is configured.
/// - `GET /catbird/api/tenants` → `{"tenants": [TenantSummary], "admin": bool, "hasMore": bool}`
///   (and `nextAfter` while `hasMore`): for the admin a page of the tenants, by id (at most
///   1,000; `after`, `prefix`, `limit`: ``TenantListing``); for shard P only P's own row, read
///   by its id (an empty list while P has no row yet). `admin` says which of the two the
///   caller got (the web page offers the admin token when false).
/// - `DELETE /catbird/api/tenants/{id}` → 204, or 404 when no such tenant; drops its mocks and
///   journal. Shard P may drop only P (another id → 403). The default tenant has no id to put
///   in a path: `DELETE /catbird/api/tenants/` followed by nothing is a 400 (most often
///   `tenants/$SHARD` with the variable unset); empty it with `removeAll` and
///   `DELETE /catbird/api/requests`.
/// - `DELETE /catbird/api/tenants?all=true` → 204: every tenant's mocks and journal, gone for
///   every reader when it answers (the journal rows are deleted in the background, as for one
///   tenant), in a few statements whatever the number of tenants. Admin only (from a shard →
///   403), and only with `all=true` (else 400, nothing dropped: ``EveryTenantOptIn``).
enum TenantRoutes {
    static func routes(_ dependencies: RouteDependencies) -> [Route] {
        [
            Route("GET", "/catbird/api/tenants", query: TenantListing.names, lane: .slow) { context in
                let listing = try TenantListing(context.query)
                return JSONBody.response(try listing.answer(dependencies.tenants, admin: context.isAdmin, caller: context.tenant))
            },
            Route(
                "DELETE", "/catbird/api/tenants", lane: .drop,
                everyTenant: EveryTenantAction(
                    refusal: "dropping every tenant (a shard drops its own with DELETE /catbird/api/tenants/<its id>)",
                    action: "drops every tenant's mocks and journal")
            ) { _ in
                let dropped = try FullDiskDeletion.refusing("the drop of every tenant") { try dependencies.tenants.dropAll() }
                // A warning: the shipped unit logs warnings, and this is the call an on-call person
                // looks for when every shard's mocks are gone (tester finding tester39b-F6).
                dependencies.log.warning(
                    "admin: dropped every tenant: \(dropped) tenants besides the default one, every mock and journal entry "
                        + "(DELETE /catbird/api/tenants?all=true)")
                return HTTPResponse(status: 204)
            },
            // One segment: a '/' inside an id is written %2F (`a%2Fb/extra` is not the id "a/b/extra").
            // Nothing after the '/' (`tenants/$SHARD` with SHARD unset) reaches the handler as "".
            Route("DELETE", "/catbird/api/tenants/", maxSegments: 1, matchesEmptyParameter: true, lane: .drop) { context in
                // Spaces, tabs and line breaks at either end dropped, as the header's are (and the
                // client libraries' rule, ParallelIdRule): no tenant id holds them there, and a
                // shard's script dropping "its" tenant with a padded id, or one read from a file
                // with its line break, was refused as dropping another (tester finding tester62b-F4).
                let tenant = TenantID(context.segments[0].trimmingCharacters(in: Self.idEdges))
                guard !tenant.isDefault else {
                    throw APIError.badRequest(
                        "DELETE /catbird/api/tenants/ names no tenant after the '/' (an unset id variable?): nothing was dropped. "
                            + "Drop one tenant with DELETE /catbird/api/tenants/{id}, every tenant with DELETE /catbird/api/tenants?all=true "
                            + "(admin); the default tenant is emptied with {\"type\":\"removeAll\"} and DELETE /catbird/api/requests")
                }
                guard tenant.isWithinMaxLength else {
                    throw APIError.badRequest("a tenant id is at most \(TenantID.maxLength) bytes (docs/tenancy.md#tenant-of-a-request)")
                }
                guard context.isAdmin || (context.tenant == tenant && !tenant.isDefault) else {
                    // Both ids named: the caller's alone read "shard-K may not drop shard-K" of a
                    // look-alike id, or of a path id with a space the header's lacks (tester56c-F1).
                    throw dependencies.admin.refusal(
                        "dropping another tenant (the path names \(tenant.named))", tenant: context.tenant, request: context.request)
                }
                guard try FullDiskDeletion.refusing("the tenant's drop", { try dependencies.tenants.drop(tenant) }) else {
                    throw APIError(status: 404, reason: "no tenant \(JSONText.shortString(tenant.rawValue))\(tenant.lookAlikeNote)")
                }
                // Another tenant's drop, the admin's, is a warning, as the drop of all is: the
                // shipped unit logs warnings, and its log line named only the caller (tester
                // finding tester59a-F1). A shard's drop of itself is routine.
                if context.tenant != tenant {
                    dependencies.log.warning("admin: dropped \(tenant.named), its mocks and journal (DELETE /catbird/api/tenants/{id})")
                }
                return HTTPResponse(status: 204)
            }.serving("/catbird/api/tenants/{name}"),
        ]
    }

    /// What is dropped at either end of a path's tenant id: spaces, tabs, CR and LF.
    private static let idEdges = CharacterSet(charactersIn: " \t\r\n")
}
