import CatbirdDomain
import CatbirdHTTP

/// `GET /catbird/api/tenants`'s query and answer (docs/protocol.md#tenants-and-health): the
/// admin's listing a page at a time (tester finding T11-F3: the whole list of 248,909 tenants
/// was built for every call, a shard's own row included).
struct TenantListing {
    /// The last id of the page before (`after`): the page starts after it.
    var after: TenantID?
    /// Only ids that start with this (`prefix`, byte by byte).
    var prefix: String?
    /// The most tenants listed (`limit`): 1 to ``TenantDirectory/maxPageSize``, that by default.
    var limit = TenantDirectory.maxPageSize

    /// The route's query parameters.
    static let names = ["after", "prefix", "limit"]

    /// - Throws: 400 naming the parameter when `limit` is not a whole number in range.
    init(_ query: [(name: String, value: String)]) throws(APIError) {
        for (name, value) in query {
            switch name {
            case "after": after = TenantID(value)
            case "prefix": prefix = value
            case "limit":
                guard let limit = QueryParameters.wholeNumber(value).map(Int.init), (1...TenantDirectory.maxPageSize).contains(limit) else {
                    throw .badRequest("'limit' must be a whole number from 1 to \(TenantDirectory.maxPageSize), not \(JSONBody.quoted(value))")
                }
                self.limit = limit
            default: break  // the route refuses other names (``names``)
            }
        }
    }

    /// The page `caller` may see: for the admin, the tenants the query selects; for anyone
    /// else, its own row (one lookup by id) when the query selects it.
    func answer(_ tenants: TenantDirectory, admin: Bool, caller: TenantID) throws -> Answer {
        if admin {
            let page = try tenants.page(after: after, prefix: prefix, limit: limit)
            return Answer(tenants: page.tenants, admin: true, hasMore: page.hasMore, nextAfter: page.hasMore ? page.tenants.last?.id : nil)
        }
        let selected = (after.map { $0 < caller } ?? true) && caller.rawValue.utf8.starts(with: (prefix ?? "").utf8)
        let own = selected ? try tenants.summary(of: caller) : nil
        return Answer(tenants: own.map { [$0] } ?? [], admin: false, hasMore: false, nextAfter: nil)
    }

    /// The JSON answer.
    struct Answer: Encodable {
        let tenants: [TenantSummary]
        /// Whether the caller is the admin, so `tenants` lists every tenant (a page of them).
        let admin: Bool
        /// Whether more tenants come after this page: ask again with `after` = ``nextAfter``.
        let hasMore: Bool
        /// The page's last id, while ``hasMore``; absent otherwise.
        let nextAfter: String?
    }
}
