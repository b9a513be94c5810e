import CatbirdDomain
import CatbirdHTTP

extension CatbirdHandler {
    /// A control request refused from its head, for a client that waits for `100 Continue`
    /// (``HTTPHandler/respondBeforeBody(_:)``): the refusals of its `Host`, origin and parallel
    /// id, or its route's (``RouteTable/refusalBeforeBody(_:tenant:isAdmin:)``), recorded as
    /// when the body was read. nil for every other request: a mocked request's body may be what
    /// matches it, and a control request with none of these refusals is read.
    func respondBeforeBody(_ head: HTTPRequest) -> HTTPAnswer? {
        let tenant = Self.tenant(of: head)
        guard tenant.isWithinMaxLength, let control = Self.controlRequest(head) else { return nil }
        let origin = cors?.allowedOrigin(of: control, control: true)
        if let refusal = controlRefusal(head, as: control, tenant: tenant, origin: origin) { return refusal }
        guard let refusal = routes.refusalBeforeBody(control, tenant: tenant, isAdmin: admin.isAdmin(control, tenant: tenant)) else {
            return nil
        }
        return recordedControl(.now(refusal), control, origin: origin, tenant: tenant)
    }

    /// A request of a tenant whose body is still to come is the tenant's work in flight from
    /// its head on (``TenantActivity``), so `--tenant-ttl` does not drop the tenant under a slow
    /// upload (tester finding tester34b-F8: a 30,000-byte upload trickled over 9 s met a 3-s TTL,
    /// the tenant was dropped 3 s in, and the upload got 404 instead of its mock's 201). Ends when
    /// the request completes, however it ends.
    func bodyWillArrive(_ head: HTTPRequest) -> (@Sendable () -> Void)? {
        guard activity.tracksIdle else { return nil }  // one atomic load when --tenant-ttl is off
        let tenant = Self.tenant(of: head)
        guard !tenant.isDefault, tenant.isWithinMaxLength else { return nil }
        activity.begin(tenant)
        return { [activity] in activity.end(tenant) }
    }
}
