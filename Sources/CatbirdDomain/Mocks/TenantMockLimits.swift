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
    /// Bytes of response bodies and patterns per tenant, all its mocks together
    /// (`--max-tenant-mock-bytes`; the bodies as sent, decoded from base64, and the pattern's
    /// texts, ``CatbirdMatching/RequestPattern/heldBytes``: a suite matching large request
    /// bodies holds them as patterns, try9b F14); nil: no limit. Default 512 MiB: ten bodies at
    /// the default `--max-body-size` (50 MiB) fit; the server holds about twice this in
    /// memory (each body is kept as sent and as the bytes served).
    public var maxBytes: Int?

    public init(maxMocks: Int? = 100_000, maxBytes: Int? = 512 * 1024 * 1024) {
        self.maxMocks = maxMocks
        self.maxBytes = maxBytes
    }

    /// The error for a change that takes a tenant from `before` to `after` (mocks, bytes of
    /// bodies and patterns), or nil when the change is within the limits or adds to neither.
    func refusal(
        tenant: TenantID, before: (mocks: Int, bytes: Int), after: (mocks: Int, bytes: Int)
    ) -> TenantMockLimitError? {
        if let maxMocks, after.mocks > maxMocks, after.mocks > before.mocks {
            return TenantMockLimitError(
                reason: "\(tenant.named) holds \(before.mocks) mocks, the limit is \(maxMocks) "
                    + "(--max-tenant-mocks, CATBIRD_MAX_TENANT_MOCKS): remove mocks (remove, removeAll) before adding more")
        }
        if let maxBytes, after.bytes > maxBytes, after.bytes > before.bytes {
            return TenantMockLimitError(
                reason: "\(tenant.named) holds \(before.bytes) bytes of mock response bodies and patterns "
                    + "and this update would make it \(after.bytes), the limit is \(maxBytes) bytes "
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
