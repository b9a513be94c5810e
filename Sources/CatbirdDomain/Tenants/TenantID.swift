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

    /// The longest id, in UTF-8 bytes: 1,024. A longer parallel id is refused with 400 on any
    /// request, so every tenant can be dropped by id (`DELETE /catbird/api/tenants/{id}`: even
    /// percent-encoded whole, 3 bytes a byte, it fits the 8 KiB request-target limit);
    /// docs/tenancy.md#tenant-of-a-request.
    public static let maxLength = 1024

    /// Whether the id is within ``maxLength``.
    public var isWithinMaxLength: Bool { rawValue.utf8.count <= Self.maxLength }

    public var isDefault: Bool { rawValue.isEmpty }

    /// For log lines: `(default)`, or the id; one of more than 64 characters cut to its first 64,
    /// `…` and its length (`tttt… (1000 characters)`), as reasons show it (docs/tenancy.md#ids-in-messages).
    public var description: String {
        guard !isDefault else { return "(default)" }
        guard let end = rawValue.index(rawValue.startIndex, offsetBy: 64, limitedBy: rawValue.endIndex), end != rawValue.endIndex
        else { return rawValue }
        return "\(rawValue[..<end])… (\(rawValue.count) characters)"
    }

    public static func < (lhs: TenantID, rhs: TenantID) -> Bool { lhs.rawValue < rhs.rawValue }
}
