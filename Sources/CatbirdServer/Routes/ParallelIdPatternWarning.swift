import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import CatbirdDomain

/// A mock's header pattern on `X-Catbird-Parallel-Id` that the tenant it is added to cannot
/// satisfy: a mock is only compared with requests whose parallel id is its tenant's
/// (docs/tenancy.md), and a header pattern reads the header's first value, so such a pattern
/// never matches. Catbird 0.11 treated the parallel id as one more header pattern, so a suite
/// migrated from it can carry one naming another shard's id (tester finding tester21a-F2: a
/// 201 with no warning, a mock only a 404's near miss revealed). Kept, as 0.11 keeps it, and
/// said in the `201`'s `warnings` (docs/protocol.md#mocks-that-can-never-match).
enum ParallelIdPatternWarning {
    /// The warning for `pattern` added to `tenant`, or nil when it has no such header pattern,
    /// or one the tenant's own requests satisfy. The default tenant's requests carry no
    /// parallel id, so any pattern on the header (which needs it present) never matches there.
    static func warning(for pattern: RequestPattern, tenant: TenantID) -> String? {
        guard let (name, match) = pattern.headers.first(where: { $0.key.equalsIgnoringASCIICase(CatbirdAction.parallelIdHeaderField) }),
              let compiled = try? CompiledPatternMatch(match)
        else { return nil }
        if !tenant.isDefault, compiled.matches(tenant.rawValue) { return nil }
        let owner = tenant.isDefault
            ? "the default tenant's, which only requests without an \(CatbirdAction.parallelIdHeaderField) reach"
            : "tenant \(JSONText.shortString(tenant.rawValue))'s, which only requests whose \(CatbirdAction.parallelIdHeaderField) is "
                + "\(JSONText.shortString(tenant.rawValue)) reach"
        return "'pattern.headers.\(JSONText.shortText(name))' never matches: this mock is \(owner) (docs/tenancy.md); the parallel "
            + "id picks the tenant and is no header pattern here (Catbird 0.11 treated it as one): remove the header pattern, or add "
            + "the mock with the parallel id it names"
    }
}
