import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

extension NotFoundAnswer {
    /// The 404 of a request no mock matched whose near misses were not searched: the near-miss
    /// catalogs of `catalogMocks` mocks (of tables changed since their last 404) were still to be
    /// built on the matching lane, which had no place for it (docs/matching.md#near-misses; tester finding
    /// try8a F9). `{"error": true, "nearMisses": [], "reason": "no mock matched GET /img/thumb/7.jpg
    /// in tenant "shard-1"; its near misses were not searched: …", "tenant": "shard-1"}`.
    init(unsearched method: String, target: String, tenant: TenantID, catalogMocks: Int) {
        var out = ByteWriter(capacity: 768 + 2 * min(target.utf8.count, 1024))
        out.append(#"{"error":true,"nearMisses":"#)
        let nearMissesStart = out.count
        out.append("[]")
        nearMissesRange = nearMissesStart..<out.count
        out.append(#","reason":""#)
        Self.writeUnmatched(method: method, target: target, tenant: tenant, to: &out)
        Self.appendClause("its near misses were not searched: the near-miss catalogs of \(catalogMocks) mocks (of tables changed "
            + "since their last 404) are still to be built, on the matching lane, where this tenant already has "
            + "\(MatchingLane.admittedPerTenant) requests running or waiting (docs/matching.md#near-misses); a later miss gets them",
            to: &out)
        out.append(#"","tenant":"#)
        out.appendJSONString(tenant.rawValue)
        out.append(UInt8(ascii: "}"))
        response = HTTPResponse(status: 404, headers: APIError.headers, body: out.bytes())
    }
}
