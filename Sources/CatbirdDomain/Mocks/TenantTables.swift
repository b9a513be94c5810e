/// The map from tenant to mock table that ``MockStore`` keeps under its lock, with the shards'
/// tables (every tenant but the default one) also kept in id order, so that the search of
/// other tenants for a default-tenant miss (``MockStore/matchingTenantsSearch(method:target:headerValue:body:until:regexpDeadline:slice:)``)
/// reads the first ones in a few steps, however many tenants there are (tester finding try8b
/// F2: copying and sorting every table per miss took 26 ms of a shared worker with 20,000 tenants).
///
/// Kept in order as tables are added and dropped: a binary search and an insertion (a shift
/// of the later entries, a few microseconds with 20,000 tenants; none when ids grow, as
/// `shard-<n>` ones do), never a sort.
struct TenantTables {
    private var byID: [TenantID: TenantMocks] = [:]
    /// Every table but the default tenant's, ordered by ``TenantID`` (`<`: UTF-8 bytes).
    private var ordered: [(tenant: TenantID, table: TenantMocks)] = []

    init() {}

    /// The tables of `tables`, ordered once.
    init(_ tables: [TenantID: TenantMocks]) {
        byID = tables
        ordered = tables.filter { !$0.key.isDefault }.map { (tenant: $0.key, table: $0.value) }.sorted { $0.tenant < $1.tenant }
    }

    /// The tenant's table; setting nil drops it, setting one adds or replaces it.
    subscript(tenant: TenantID) -> TenantMocks? {
        get { byID[tenant] }
        set {
            if let newValue {
                let previous = byID.updateValue(newValue, forKey: tenant)
                guard !tenant.isDefault else { return }
                let at = insertionIndex(of: tenant)
                if previous != nil, at < ordered.count, ordered[at].tenant == tenant {
                    ordered[at].table = newValue
                } else {
                    ordered.insert((tenant, newValue), at: at)
                }
            } else {
                _ = removeValue(forKey: tenant)
            }
        }
    }

    /// Drops the tenant's table and returns it (nil: it had none).
    mutating func removeValue(forKey tenant: TenantID) -> TenantMocks? {
        guard let removed = byID.removeValue(forKey: tenant) else { return nil }
        if !tenant.isDefault {
            let at = insertionIndex(of: tenant)
            if at < ordered.count, ordered[at].tenant == tenant { ordered.remove(at: at) }
        }
        return removed
    }

    /// Drops every table.
    mutating func removeAll() {
        byID.removeAll()
        ordered.removeAll()
    }

    /// Every tenant's table, in no particular order.
    var values: Dictionary<TenantID, TenantMocks>.Values { byID.values }

    /// How many tenants have a table.
    var count: Int { byID.count }

    /// At most `limit` shards' tables in id order, the first of them the first whose id comes
    /// after `after` (nil: from the first shard). A copy of only those entries (a slice would
    /// keep the whole list shared, and the next table added would copy all of it).
    func shards(after: TenantID?, limit: Int) -> [(tenant: TenantID, table: TenantMocks)] {
        var start = 0
        if let after {
            start = insertionIndex(of: after)
            if start < ordered.count, ordered[start].tenant == after { start += 1 }
        }
        return Array(ordered[start..<min(start + limit, ordered.count)])
    }

    /// The index of the first entry whose id is not below `tenant` (binary search).
    private func insertionIndex(of tenant: TenantID) -> Int {
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if ordered[middle].tenant < tenant { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
