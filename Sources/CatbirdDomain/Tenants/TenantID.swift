import CatbirdWire

/// A tenant: the mocks and journal of one parallel test shard, named by the request's
/// `X-Catbird-Parallel-Id` header. Requests without the header belong to the default tenant,
/// whose id is the empty string (docs/tenancy.md#tenant-of-a-request).
public struct TenantID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The parallel id exactly as sent; `""` for the default tenant.
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The tenant of requests that carry no `X-Catbird-Parallel-Id` header.
    public static let defaultTenant = TenantID("")

    /// The name of the header that selects the tenant.
    public static let headerName = CatbirdAction.parallelIdHeaderField

    public var isDefault: Bool { rawValue.isEmpty }

    public var description: String { isDefault ? "(default)" : rawValue }

    public static func < (lhs: TenantID, rhs: TenantID) -> Bool { lhs.rawValue < rhs.rawValue }
}
