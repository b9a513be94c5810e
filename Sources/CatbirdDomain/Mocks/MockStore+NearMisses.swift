import CatbirdMatching
import CatbirdWire

/// What a request nothing answered came close to (docs/matching.md#near-misses).
public struct NearMissReport: Sendable {
    /// The closest mocks of the request's tenant and of the default tenant, closest first.
    public var nearMisses: [CatbirdNearMiss]
    /// Tenants with a mock that matches the request; looked for only when the request carried
    /// no parallel id (the default tenant's request), else empty.
    public var matchingTenants: [TenantID]
    /// How many mocks were compared field by field (edit distance included); the others were
    /// ruled out by a bound.
    public var compared: Int
}

extension MockStore {
    /// Near misses reported per request at most: 3.
    public static let nearMissLimit = 3
    /// Other tenants searched for a matching mock at most: 100.
    public static let nearMissTenantLimit = 100
    /// Tenants with a matching mock reported at most: 3.
    public static let matchingTenantLimit = 3
    /// Time the whole comparison may take: 50 ms; checked before each block of mocks and each
    /// tenant, so a request with a huge body and many body patterns stops early with what it has.
    public static let nearMissTimeLimit = Duration.milliseconds(50)

    /// The closest mocks to a request no mock answered, among all of the tenant's and the
    /// default tenant's mocks, ranked by ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:until:fields:)``
    /// (ties: the tenant's own first, then match order), and, for a request of the default
    /// tenant, the other tenants holding a mock that matches it. Bounded by
    /// ``nearMissTenantLimit`` and ``nearMissTimeLimit``; never called for a request a mock
    /// answered.
    ///
    /// Mocks whose url pattern may match the target (``MockTable/urlCandidates(for:)``) are
    /// compared first. Every other mock's url differs, so its distance is at least the bounds of
    /// ``NearMissCatalog``: blocks are visited lowest bound first, and a block or mock whose
    /// bound cannot beat the third closest so far (ties: rank, then position) is skipped
    /// without an edit distance.
    public func nearMisses(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8]
    ) -> NearMissReport {
        let owners = tenant.isDefault ? [tenant] : [tenant, .defaultTenant]
        // Built once per table version, by the first miss after a change: not counted in the time limit.
        let views = owners.compactMap { table(of: $0)?.nearMissView() }
        let deadline = ContinuousClock.now.advanced(by: Self.nearMissTimeLimit)
        let probe = NearMissProbe(method: method, target: target)
        var closest = NearMissRanking(limit: Self.nearMissLimit)
        var compared = 0
        func compare(_ mock: Mock, rank: Int, urlMatches: Bool) {
            let comparison = mock.pattern.compare(
                probe, headerValue: headerValue, body: body, urlMatches: urlMatches, until: deadline, fields: false)
            compared += 1
            closest.offer(distance: comparison.distance, rank: rank, mock: mock)
        }

        var catalogs: [(rank: Int, catalog: NearMissCatalog, candidates: Set<Int>)] = []
        for (rank, (table, catalog)) in views.enumerated() where !catalog.mocks.isEmpty {
            let candidates = Set(table.urlCandidates(for: target).compactMap { catalog.indexByID[$0] })
            for index in candidates.sorted() where ContinuousClock.now < deadline {
                let mock = catalog.mocks[index]
                compare(mock, rank: rank, urlMatches: mock.pattern.urlMatches(probe, until: deadline))
            }
            catalogs.append((rank, catalog, candidates))
        }

        var blocks: [(bound: Double, catalog: Int, block: Int)] = []
        for (number, entry) in catalogs.enumerated() {
            for block in entry.catalog.blocks.indices {
                blocks.append((entry.catalog.bound(ofBlock: block, for: probe), number, block))
            }
        }
        blocks.sort { $0.bound < $1.bound }
        for block in blocks {
            guard closest.admits(distance: block.bound), ContinuousClock.now < deadline else { break }
            let (rank, catalog, candidates) = catalogs[block.catalog]
            let first = catalog.blocks[block.block].firstPosition
            guard closest.admits(distance: block.bound, rank: rank, position: first),
                  closest.admits(distance: catalog.sequenceBound(ofBlock: block.block, for: probe), rank: rank, position: first)
            else { continue }
            for index in catalog.blocks[block.block].range where candidates.isEmpty || !candidates.contains(index) {
                let position = catalog.positions[index]
                if closest.admits(distance: catalog.bound(of: index, for: probe), rank: rank, position: position),
                   closest.admits(distance: catalog.urlBound(of: index, for: probe), rank: rank, position: position)
                {
                    compare(catalog.mocks[index], rank: rank, urlMatches: false)
                }
            }
        }

        var matching: [TenantID] = []
        if tenant.isDefault {
            for (other, table) in tablesSnapshot().prefix(Self.nearMissTenantLimit) where !other.isDefault {
                guard ContinuousClock.now < deadline, matching.count < Self.matchingTenantLimit else { break }
                if table.firstMatch(method: method, target: target, headerValue: headerValue, body: body, deadline: deadline) != nil {
                    matching.append(other)
                }
            }
        }
        return NearMissReport(
            nearMisses: closest.entries.map { entry in
                let mock = entry.mock
                let fields = mock.pattern.compare(
                    probe, headerValue: headerValue, body: body, urlMatches: mock.pattern.urlMatches(probe, until: deadline),
                    until: deadline, fields: true
                ).fields
                return CatbirdNearMiss(
                    mockId: mock.id, tenant: mock.tenant.rawValue, position: mock.position,
                    distance: (entry.distance * 1000).rounded() / 1000, pattern: mock.pattern.source, fields: fields)
            },
            matchingTenants: matching, compared: compared)
    }
}

/// The closest mocks seen so far, at most `limit`, ordered by distance, then rank (the
/// request's own tenant 0, the default tenant 1), then position.
struct NearMissRanking {
    let limit: Int
    private(set) var entries: [(distance: Double, rank: Int, mock: Mock)] = []

    init(limit: Int) {
        self.limit = limit
        entries.reserveCapacity(limit + 1)
    }

    /// Whether a mock at this distance, rank and position would enter the ranking.
    func admits(distance: Double, rank: Int, position: Int64) -> Bool {
        guard entries.count == limit, let worst = entries.last else { return true }
        return (distance, rank, position) < (worst.distance, worst.rank, worst.mock.position)
    }

    /// Whether some mock at this distance could enter the ranking (ties are decided by rank and
    /// position, so a distance equal to the last one's may).
    func admits(distance: Double) -> Bool {
        guard entries.count == limit, let worst = entries.last else { return true }
        return distance <= worst.distance
    }

    mutating func offer(distance: Double, rank: Int, mock: Mock) {
        guard admits(distance: distance, rank: rank, position: mock.position) else { return }
        let index = entries.firstIndex { (distance, rank, mock.position) < ($0.distance, $0.rank, $0.mock.position) } ?? entries.count
        entries.insert((distance, rank, mock), at: index)
        if entries.count > limit { entries.removeLast() }
    }
}
