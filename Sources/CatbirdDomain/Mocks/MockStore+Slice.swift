import CatbirdMatching

extension MockStore {
    /// What matching a request within a short slice of time found
    /// (``MockStore/serve(tenant:method:target:headerValue:body:within:)``).
    public enum SlicedMatch: Sendable {
        /// A mock matched; its hit is counted.
        case hit(MockHit)
        /// No mock matched, and every expression finished within the slice: the answer is final.
        case miss
        /// A regular expression was still running at the end of the slice: nothing was
        /// counted, and the request must be matched again with its whole evaluation budget
        /// (``MockStore/serve(tenant:method:target:headerValue:body:budget:outOfTime:)``),
        /// somewhere its time delays no one else (docs/tenancy.md#fair-shares).
        case unfinished
    }

    /// Serves a request as ``serve(tenant:method:target:headerValue:body:budget:outOfTime:)``
    /// does, if its regular expressions all finish within `slice` (measured from the call).
    /// The first one still running then is stopped and the answer is ``SlicedMatch/unfinished``:
    /// no hit counted, no overrun reported (the slice is not the request's budget). With
    /// `refundable`, a hit can be given back until it is settled, as
    /// ``serve(tenant:method:target:headerValue:body:budget:refundable:outOfTime:skipped:)`` says;
    /// so can one whose mock's response body has `refundableFromBody` bytes or more
    /// (``TenantMocks``' serve).
    /// A default-tenant mock with an expression marked slow before is not started for another
    /// tenant's request: it counts as not matching and is passed to `skipped`, and the search
    /// goes on (tester finding try9b F7), except for its probes (``MockTable``). `kind`: a
    /// worker's slice (``RegexpSlice/matching``) or the body lane's (``RegexpSlice/bodyLane``).
    public func serve(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8], within slice: Duration,
        as kind: RegexpSlice = .matching, refundable: Bool = false, refundableFromBody: Int = .max,
        skipped: (Mock) -> Void = { _ in }
    ) -> SlicedMatch {
        var unfinished = false
        let hit = serve(
            tenant: tenant, method: method, target: target, headerValue: headerValue, body: body,
            deadline: ContinuousClock.now.advanced(by: slice), slice: kind, refundable: refundable,
            refundableFromBody: refundableFromBody, outOfTime: { _ in unfinished = true }, skipped: skipped)
        if let hit { return .hit(hit) }
        return unfinished ? .unfinished : .miss
    }
}
