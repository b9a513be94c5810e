@testable import CatbirdDomain
import CatbirdMatching
@_spi(Server) import CatbirdWire

/// A request as the near-miss tests send it: header names looked up case-insensitively, as the server does.
struct NearMissTestRequest: CustomStringConvertible {
    let method: String
    let target: String
    /// Lowercased names.
    let headers: [String: String]
    let body: [UInt8]

    func headerValue(_ name: String) -> String? { headers[name.lowercased()] }

    var description: String { "\(method) \(target) \(headers) \(String(decoding: body, as: UTF8.self))" }
}

extension MockStore {
    /// The closest three by comparing every mock of the tenant (rank 0) and, for a shard, of the
    /// default tenant (rank 1): (id, distance rounded as shown), ordered by distance, rank, then
    /// position, as docs/matching.md#near-misses orders them. No bound, budget or time limit.
    func exhaustiveNearMisses(tenant: TenantID, _ miss: NearMissTestRequest) -> [(id: Int64, distance: Double)] {
        let probe = NearMissProbe(method: miss.method, target: miss.target)
        let far = ContinuousClock.now.advanced(by: .seconds(60))
        let tenants = tenant.isDefault ? [tenant] : [tenant, .defaultTenant]
        let ranked = tenants.enumerated().flatMap { rank, owner in
            mocks(of: owner).map { mock in
                let urlMatches = mock.pattern.urlMatches(probe, until: far)
                let comparison = mock.pattern.compare(
                    probe, headerValue: miss.headerValue, body: miss.body, urlMatches: urlMatches, until: far, fields: false)
                return (distance: comparison.distance, rank: rank, position: mock.position, id: mock.id)
            }
        }.sorted { ($0.distance, $0.rank, $0.position) < ($1.distance, $1.rank, $1.position) }
        return ranked.prefix(MockStore.nearMissLimit).map { ($0.id, ($0.distance * 1000).rounded() / 1000) }
    }
}
