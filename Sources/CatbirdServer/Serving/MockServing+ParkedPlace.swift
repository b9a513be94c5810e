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
        return refused(parked.refusal(tenant), request: request, tenant: tenant)
    }

    /// `request` refused with `refusal` (a 429: its tenant's places on a lane or for parked
    /// requests are taken) and the refusal journaled as the server's own answer: logged as a
    /// warning, marked as Catbird's own where the request would have been forwarded
    /// (``Forwarding/refusal(_:of:)``). The one form of such a refusal, for the workers'
    /// lanes (``CatbirdHandler/refusedForLane(_:_:tenant:)``) and for a delayed mock's place.
    func refused(_ refusal: APIError, request: HTTPRequest, tenant: TenantID) -> Served {
        log.warning("\(request.method) \(JSONText.string(request.target)) (\(tenant.named)) refused: \(refusal.reason)")
        let response = forwarding?.refusal(refusal.response, of: request.target) ?? refusal.response
        return answered(response, request: request, tenant: tenant)
    }
}
