import CatbirdDomain
import CatbirdHTTP
import CatbirdSupport

/// The `X-Catbird-Parallel-Id` rule of control calls (docs/tenancy.md#tenant-of-a-request): a
/// control call without the header is the default tenant (and the admin when no admin token is
/// set); one with the header must name one tenant. An empty (or blank) value, or the header
/// twice with different values, is refused with 400 instead of read as "no header": in CI that
/// is a shard whose id variable is unset (`-H "X-Catbird-Parallel-Id: $SHARD"`), and taken as
/// the admin its start-of-test cleanup (`DELETE /catbird/api/mocks`, `DELETE
/// /catbird/api/tenants`) wiped every other shard (try6b finding 11). Mocked requests keep the
/// documented reading (empty: the default tenant; twice: the first value). The 0.11 client, and
/// ours, send no header when they have no id.
enum ControlParallelID {
    /// Why the control call's parallel id is refused, or nil when it is absent or names one tenant.
    /// - Parameter tenant: the tenant the call was read as (``CatbirdHandler/tenant(of:)``: the
    ///   header's first value); every other value must name it too.
    static func problem(of request: HTTPRequest, tenant: TenantID) -> String? {
        for value in request.headers.values(TenantID.headerName) {
            if value[...].trimmingOptionalWhitespace().isEmpty {
                return "the \(TenantID.headerName) header is empty: a control call names its tenant or sends no header "
                    + "(the default tenant; the admin when no admin token is set), and an empty id is most often an unset "
                    + "variable, so it is refused rather than read as either (docs/tenancy.md#tenant-of-a-request)"
            }
            if TenantID(value) != tenant {
                // Each with its look-alike note: `("shard-K", "shard-K" (not in NFC: U+212A))` read as
                // one value twice (tester finding tester39a-F8).
                return "the \(TenantID.headerName) header is sent twice with different values (\(JSONText.shortString(tenant.rawValue))"
                    + "\(tenant.lookAlikeNote), \(JSONText.shortString(value))\(TenantID(value).lookAlikeNote)): a control call names one "
                    + "tenant (docs/tenancy.md#tenant-of-a-request)"
            }
        }
        return nil
    }
}
