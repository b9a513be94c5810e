import CatbirdMatching
import CatbirdSupport

/// A mock that a hit removed by using up its `limit` (docs/protocol.md#mock-limits), as that
/// hit left it, remembered so that a later 404 it would have answered says so (try9a F1: the
/// commonest "sudden 404" is an app calling once more than the test planned).
public struct UsedUpMock: Sendable {
    /// The mock after its last hit: ``Mock/hits`` is how many answers it gave.
    public let mock: Mock
    /// When its limit was used up (UTC, ISO 8601 with milliseconds).
    public let at: String

    /// `mock 38 (POST equal "/login") of tenant "m1" matches it but was used up by its limit of 2
    /// at 2026-12-02T03:51:13.120Z: a mock is removed once its limit is used up; add it again, or
    /// raise its limit` (the url cut after 200 bytes). The limit named is the one the mock was
    /// added with (``Mock/addedLimit``), also when some of its uses were spent before a restart:
    /// `response.limit` of a mock loaded at start-up is what remained then (tester finding T12-F10).
    public var hint: String {
        let pattern = mock.pattern.source
        let limit = mock.addedLimit.map { " of \($0)" } ?? ""
        return "mock \(mock.id) (\(pattern.method.rawValue) \(pattern.url.kind.rawValue) \(JSONText.shortString(pattern.url.value))) "
            + "of \(mock.tenant.named) matches it but was used up by its limit\(limit) at \(at): "
            + "a mock is removed once its limit is used up; add it again, or raise its limit"
    }
}

extension MockStore {
    /// How long a 404 may look at recently used-up mocks: 5 ms (their regular expressions
    /// included; one still running then counts as not matching).
    public static let usedUpTimeLimit = Duration.milliseconds(5)

    /// The latest of the tenant's recently used-up mocks (at most ``TenantMocks/usedUpKept`` a
    /// tenant) that matches the request, else the default tenant's (for a shard), else nil:
    /// for the 404 of a request nothing answered. `slice`: ``RegexpSlice/comparing`` for a 404
    /// made on a worker (no marked expression started, no pass over a body over 64 KiB: such a
    /// mock counts as not matching), ``RegexpSlice/whole`` on the matching lane.
    public func usedUpMatch(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8],
        slice: RegexpSlice = .whole
    ) -> UsedUpMock? {
        guard TenantMocks.anyUsedUp.load(ordering: .relaxed) else { return nil }
        let deadline = ContinuousClock.now.advanced(by: Self.usedUpTimeLimit)
        func match(_ tenant: TenantID) -> UsedUpMock? {
            table(of: tenant)?.usedUpMatch(
                method: method, target: target, headerValue: headerValue, body: body, deadline: deadline, slice: slice)
        }
        if let found = match(tenant) { return found }
        return tenant.isDefault ? nil : match(.defaultTenant)
    }
}
