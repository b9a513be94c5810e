import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching

/// Requests matched on the body lane (docs/tenancy.md#large-bodies): those whose body a body
/// pattern must read when it is over the 64 KiB a worker reads, on threads of their own, so
/// they never queue behind other tenants' slow regular expressions on the matching lane
/// (tester finding try9b F10: 40-80 tenants with one slow-regexp request each made a 100 KB
/// upload against a `jsonPath` mock wait 4-8.5 s).
extension CatbirdHandler {
    /// Matches `request`, whose body of `bytes` bytes a worker would not read, on the body lane
    /// in its tenant's turn, its connection parked meanwhile: every pass over the body runs,
    /// and its regular expressions get ``MatchingLane/bodyLaneSlice(bytes:)`` with the rules of
    /// a worker's slice (``RegexpSlice/bodyLane``). A request whose expressions outlast that, or
    /// whose 404 needs a large near-miss catalog built, goes on to the matching lane
    /// (``matchOnMatchingLane(_:tenant:cause:missedAt:)``), where it waits for its tenant's slow
    /// requests only. Refused with ``APIError/bodyLaneBusy(bytes:)`` (journaled, counted) when its
    /// tenant already has ``MatchingLane/admittedPerTenant`` requests there; one no longer
    /// waiting when its turn comes is not matched (``abandonedOnLane(_:tenant:_:lane:)``).
    func matchOnBodyLane(_ request: HTTPRequest, tenant: TenantID, bytes: Int) -> HTTPAnswer {
        guard let reservation = bodyLane.admit(tenant) else {
            serving.metrics.bodyLaneRefused.add(1, ordering: .relaxed)
            return refusedForLane(.bodyLaneBusy(bytes: bytes), request, tenant: tenant)
        }
        serving.metrics.bodyLaneRequests.add(1, ordering: .relaxed)
        return .later { [self] responder in
            // Not matched (nil) when the client no longer waits.
            bodyLane.run(tenant, holding: reservation) { () -> MockServing.OnWorker? in
                guard responder.isWaiting else { return nil }
                return RequestBodyScope.reading(request.matchedBody, admittingEveryPass: true) {
                    serving.respond(
                        to: request, tenant: tenant, within: MatchingLane.bodyLaneSlice(bytes: bytes), as: .bodyLane, refundable: true)
                }
            } then: { (served: MockServing.OnWorker?) in
                switch served {
                case nil: abandonedOnLane(request, tenant: tenant, responder, lane: "body lane")
                case let .served(served)?: deliverFromLane(served, request, tenant: tenant, lane: "body lane", to: responder)
                case let .unfinished(cause)?: matchOnMatchingLane(request, tenant: tenant, cause: cause).complete(through: responder)
                case let .notFoundOnLane(generation)?:
                    matchOnMatchingLane(request, tenant: tenant, missedAt: generation).complete(through: responder)
                }
            }
        }
    }
}
