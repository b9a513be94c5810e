/// Where a miss's near-miss catalogs are built (docs/matching.md#near-misses): a table's
/// catalog is built by the first miss after each change of it, in time proportional to its
/// mocks (about 10 µs each), so a large table's is built off the server's workers (tester
/// finding try7a F12: 0.12 s of a shared worker with 10,000 mocks, 0.25 s with 20,000).
extension MockStore {
    /// The most mocks whose near-miss catalogs a miss may build on a server worker: 1,000
    /// (about 10 ms). A miss that would build more is handed to the matching lane.
    public static let nearMissCatalogWorkerLimit = 1_000

    /// The tables a miss of one tenant is compared with (``nearMisses(tenant:in:method:target:headerValue:body:regexpSlice:)``),
    /// looked up once for the check of ``catalogsToBuild`` and the search.
    public struct NearMissTables: Sendable {
        /// The tenant's own table; nil when it has none.
        let own: TenantMocks?
        /// The default tenant's, for a shard's miss; nil for the default tenant's own, or when it has none.
        let shared: TenantMocks?

        /// How many mocks a miss would build near-miss catalogs from before it could compare
        /// them: each table's count while its current version's catalog is not built. Never
        /// waits for a build under way.
        public var catalogsToBuild: Int {
            (own?.nearMissCatalogToBuild ?? 0) + (shared?.nearMissCatalogToBuild ?? 0)
        }
    }

    /// `tenant`'s table and, for a shard, the default tenant's, as they are now.
    public func nearMissTables(of tenant: TenantID) -> NearMissTables {
        NearMissTables(own: table(of: tenant), shared: tenant.isDefault ? nil : table(of: .defaultTenant))
    }
}
