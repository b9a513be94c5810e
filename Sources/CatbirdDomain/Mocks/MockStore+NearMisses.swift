import CatbirdMatching
import CatbirdWire

/// What a request nothing answered came close to (docs/matching.md#near-misses).
public struct NearMissReport: Sendable {
    /// The closest mocks of the request's tenant and of the default tenant, closest first.
    public var nearMisses: [CatbirdNearMiss]
    /// Tenants with a mock that matches the request; looked for only when the request carried
    /// no parallel id (the default tenant's request), else empty.
    public var matchingTenants: [TenantID]
    /// How many mocks were compared (at most ``MockStore/nearMissMockLimit`` per tenant).
    public var compared: Int
}

extension MockStore {
    /// Near misses reported per request at most: 3.
    public static let nearMissLimit = 3
    /// Mocks compared per tenant at most, the first in match order: 100.
    public static let nearMissMockLimit = 100
    /// Other tenants searched for a matching mock at most: 100.
    public static let nearMissTenantLimit = 100
    /// Tenants with a matching mock reported at most: 3.
    public static let matchingTenantLimit = 3
    /// Time the whole comparison may take: 50 ms; checked before each mock and tenant, so a
    /// request with a huge body and many body patterns stops early with what it has.
    public static let nearMissTimeLimit = Duration.milliseconds(50)

    /// The closest mocks to a request no mock answered: the tenant's own and the default
    /// tenant's, ranked by ``CompiledRequestPattern/compare(method:target:headerValue:body:)``
    /// (ties: the tenant's own first, then match order), and, for a request of the default
    /// tenant, the other tenants holding a mock that matches it. Bounded by
    /// ``nearMissMockLimit``, ``nearMissTenantLimit`` and ``nearMissTimeLimit``; never called
    /// for a request a mock answered.
    public func nearMisses(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8]
    ) -> NearMissReport {
        let deadline = ContinuousClock.now.advanced(by: Self.nearMissTimeLimit)
        var candidates: [(rank: Int, mock: Mock, comparison: RequestComparison)] = []
        let owners = tenant.isDefault ? [tenant] : [tenant, .defaultTenant]
        for (rank, owner) in owners.enumerated() {
            for mock in table(of: owner)?.first(Self.nearMissMockLimit) ?? [] {
                guard ContinuousClock.now < deadline else { break }
                let comparison = mock.pattern.compare(method: method, target: target, headerValue: headerValue, body: body)
                candidates.append((rank, mock, comparison))
            }
        }
        let closest = candidates.sorted {
            ($0.comparison.distance, $0.rank, $0.mock.position) < ($1.comparison.distance, $1.rank, $1.mock.position)
        }.prefix(Self.nearMissLimit)
        var matching: [TenantID] = []
        if tenant.isDefault {
            for (other, table) in tablesSnapshot().prefix(Self.nearMissTenantLimit) where !other.isDefault {
                guard ContinuousClock.now < deadline, matching.count < Self.matchingTenantLimit else { break }
                let found = table.read {
                    $0.firstMatch(
                        method: method, target: target, headerValue: headerValue, body: body, deadline: deadline, outOfTime: { _ in })
                }
                if found != nil {
                    matching.append(other)
                }
            }
        }
        return NearMissReport(
            nearMisses: closest.map { candidate in
                CatbirdNearMiss(
                    mockId: candidate.mock.id, tenant: candidate.mock.tenant.rawValue, position: candidate.mock.position,
                    distance: (candidate.comparison.distance * 1000).rounded() / 1000, pattern: candidate.mock.pattern.source,
                    fields: candidate.comparison.fields)
            },
            matchingTenants: matching, compared: candidates.count)
    }
}
