import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

extension MockServing {
    /// The 429 sent in place of `hit`'s delayed mock's answer when its tenant already has its
    /// share of parked requests (``ParkedRequests``; tester finding T19A-F2: one tenant's requests
    /// to a mock with a day's delay took every connection slot): the hit is given back (a
    /// delayed hit stays refundable until its delay ends), the refusal logged as a warning and
    /// journaled as the server's own answer, marked as Catbird's own where the request would have
    /// been forwarded (``Forwarding/refusal(_:of:)``).
    func refusedForPlace(_ hit: MockHit, request: HTTPRequest, tenant: TenantID) -> Served {
        mocks.refund(hit)
        let refusal = parked.refusal(tenant)
        log.warning("\(request.method) \(JSONText.string(request.target)) (tenant \(JSONText.string(tenant.rawValue))) refused: \(refusal.reason)")
        let response = forwarding?.refusal(refusal.response, of: request.target) ?? refusal.response
        return answered(response, request: request, tenant: tenant)
    }
}
