/// Where a miss's near-miss catalogs are built (docs/matching.md#near-misses): a table's
/// catalog is built by the first miss after each change of it, in time proportional to its
/// mocks (about 10 µs each), so a large table's is built off the server's workers (tester
/// finding try7a F12: 0.12 s of a shared worker with 10,000 mocks, 0.25 s with 20,000).
extension MockStore {
    /// The most mocks whose near-miss catalogs a miss may build on a server worker: 1,000
    /// (about 10 ms). A miss that would build more is handed to the matching lane.
    public static let nearMissCatalogWorkerLimit = 1_000

    /// How many mocks a miss of `tenant` would build near-miss catalogs from before it could
    /// compare them: its own table's and, for a shard, the default tenant's, each counted only
    /// while its current version's catalog is not built. Never waits for a build under way.
    public func nearMissCatalogsToBuild(for tenant: TenantID) -> Int {
        let own = table(of: tenant)?.nearMissCatalogToBuild ?? 0
        guard !tenant.isDefault else { return own }
        return own + (table(of: .defaultTenant)?.nearMissCatalogToBuild ?? 0)
    }
}
