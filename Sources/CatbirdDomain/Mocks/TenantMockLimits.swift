import CatbirdSupport

/// The most one tenant's mocks may hold (docs/protocol.md#mock-limits): mocks live in memory,
/// so without a bound one shard adding large fixtures and never removing them could take the
/// whole shared server down. An `update` that would take its tenant past either limit is
/// refused with ``TenantMockLimitError``, nothing stored; one that adds neither a mock nor
/// bytes (a replacement by a body no larger) is always accepted, so a tenant loaded over
/// lowered limits can still change its mocks.
public struct TenantMockLimits: Sendable, Equatable {
    /// Mocks per tenant (`--max-tenant-mocks`); nil: no limit. Default 100,000: ten times the
    /// largest tenant the benchmarks measure, loaded at start-up in about a second.
    public var maxMocks: Int?
    /// Bytes of response bodies per tenant, all its mocks together (`--max-tenant-mock-bytes`,
    /// the bodies as sent, decoded from base64); nil: no limit. Default 512 MiB: ten bodies at
    /// the default `--max-body-size` (50 MiB) fit; the server holds about twice this in
    /// memory (each body is kept as sent and as the bytes served).
    public var maxBodyBytes: Int?

    public init(maxMocks: Int? = 100_000, maxBodyBytes: Int? = 512 * 1024 * 1024) {
        self.maxMocks = maxMocks
        self.maxBodyBytes = maxBodyBytes
    }

    /// The error for a change that takes a tenant from `before` to `after` (mocks, body bytes),
    /// or nil when the change is within the limits or adds to neither.
    func refusal(
        tenant: TenantID, before: (mocks: Int, bodyBytes: Int), after: (mocks: Int, bodyBytes: Int)
    ) -> TenantMockLimitError? {
        if let maxMocks, after.mocks > maxMocks, after.mocks > before.mocks {
            return TenantMockLimitError(
                reason: "tenant \(JSONText.shortString(tenant.rawValue)) holds \(before.mocks) mocks, the limit is \(maxMocks) "
                    + "(--max-tenant-mocks, CATBIRD_MAX_TENANT_MOCKS): remove mocks (remove, removeAll) before adding more")
        }
        if let maxBodyBytes, after.bodyBytes > maxBodyBytes, after.bodyBytes > before.bodyBytes {
            return TenantMockLimitError(
                reason: "tenant \(JSONText.shortString(tenant.rawValue)) holds \(before.bodyBytes) bytes of mock response bodies "
                    + "and this update would make it \(after.bodyBytes), the limit is \(maxBodyBytes) bytes "
                    + "(--max-tenant-mock-bytes, CATBIRD_MAX_TENANT_MOCK_BYTES): remove mocks (remove, removeAll) first")
        }
        return nil
    }
}

/// An `update` refused because its tenant would hold more than ``TenantMockLimits`` allows:
/// 409 (the tenant's current mocks conflict with it; removing some resolves it), nothing stored.
public struct TenantMockLimitError: HTTPResponseError, Sendable {
    public var status: Int { 409 }
    public let reason: String
}
