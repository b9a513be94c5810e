import CatbirdDomain
import CatbirdSupport
import Synchronization

/// The request bodies that parked `POST /catbird/api/requests/wait` calls hold, bounded per
/// tenant and for all tenants together (docs/tenancy.md#fair-shares).
///
/// A wait's body (its pattern, which may carry a large `equal` or `contains` body value) stays
/// in the server's buffered-body budget (`--max-buffered-bodies`) until the wait answers, up to
/// 300 s, and its compiled pattern in memory as long. Unbounded, 2,000 parked waits with 200 KB
/// patterns held the whole budget, and every other tenant's upload and large `update` got 503
/// for as long as they waited (tester finding try10b F2, addendum). So a wait takes its body's
/// bytes (at least ``ByteBudget/firstHolding``, what a body holds of the budget at least) from
/// two allowances as it arrives, given back when it is done (its ``Charge`` released):
///
/// - a tenant's parked waits hold at most 1/``tenantShare`` of the budget, but a tenant that
///   holds none may always park one (whatever its size, within the all-tenants bound): past it,
///   429, the tenant's own waits being the cause;
/// - all tenants' parked waits hold at most 1/``allShare`` of the budget: past it, 503 (with
///   `Retry-After`), so that at least three quarters of the budget is always left to uploads.
///
/// All tenants' allowance is a ``ByteBudget`` of its own (the same take-or-refuse accounting
/// as the buffered-body budget it is a share of); only the tenants' allowances are kept here.
final class ParkedWaitBytes: Sendable {
    /// A tenant's parked waits hold at most this fraction of the budget: 1/32.
    static let tenantShare = 32
    /// All tenants' parked waits hold at most this fraction of the budget: 1/4.
    static let allShare = 4

    /// The server's buffered-body budget, in bytes (`--max-buffered-bodies`).
    let budget: Int
    /// Bytes a tenant's parked waits may hold (1/``tenantShare`` of ``budget``).
    var tenantLimit: Int { budget / Self.tenantShare }
    /// Bytes all tenants' parked waits may hold (1/``allShare`` of ``budget``).
    var allLimit: Int { all.limit }

    /// All tenants' parked waits' bytes, bounded by ``allLimit``.
    private let all: ByteBudget
    /// Each tenant's parked waits' bytes (tenants that hold none are left out).
    private let byTenant = Mutex<[TenantID: Int]>([:])

    /// - Parameter budget: the server's buffered-body budget in bytes (``CatbirdHTTP/HTTPServer/Configuration/bodyBudget``'s limit).
    init(budget: Int) {
        self.budget = budget
        all = ByteBudget(limit: budget / Self.allShare)
    }

    /// What one parked wait holds; given back when released (the wait answered and let go).
    final class Charge: Sendable {
        private let owner: ParkedWaitBytes
        private let tenant: TenantID
        let bytes: Int

        fileprivate init(owner: ParkedWaitBytes, tenant: TenantID, bytes: Int) {
            self.owner = owner
            self.tenant = tenant
            self.bytes = bytes
        }

        deinit {
            owner.giveBack(bytes, of: tenant)
        }
    }

    /// Takes a wait's body of `bodyBytes` for `tenant`.
    /// - Throws: 429 when the tenant's parked waits would hold more than ``tenantLimit`` (and it
    ///   holds some already); 503 when all tenants' would hold more than ``allLimit``.
    func admit(_ tenant: TenantID, bodyBytes: Int) throws(APIError) -> Charge {
        let bytes = max(bodyBytes, ByteBudget.firstHolding)
        let refusal: APIError? = byTenant.withLock { byTenant in
            let tenantHeld = byTenant[tenant] ?? 0
            if tenantHeld > 0, tenantHeld + bytes > tenantLimit {
                return APIError(
                    status: 429,
                    reason: "this tenant's parked waits already hold \(tenantHeld) bytes of request bodies (their patterns), "
                        + "and this one's \(bytes) would pass the \(tenantLimit) a tenant's waits may hold (1/\(Self.tenantShare) of "
                        + "--max-buffered-bodies, \(budget) bytes), so that they never hold the budget other tenants' uploads need "
                        + "(docs/tenancy.md#fair-shares); retry when one has answered, or wait with smaller patterns")
            }
            guard all.take(bytes) else {
                return APIError(
                    status: 503,
                    reason: "the parked waits of all tenants already hold \(all.taken) bytes of request bodies (their patterns), "
                        + "and this one's \(bytes) would pass the \(allLimit) they may hold together (1/\(Self.allShare) of "
                        + "--max-buffered-bodies, \(budget) bytes; docs/tenancy.md#fair-shares); retry when some have answered")
            }
            byTenant[tenant] = tenantHeld + bytes
            return nil
        }
        if let refusal { throw refusal }
        return Charge(owner: self, tenant: tenant, bytes: bytes)
    }

    private func giveBack(_ bytes: Int, of tenant: TenantID) {
        byTenant.withLock { byTenant in
            let left = (byTenant[tenant] ?? 0) - bytes
            byTenant[tenant] = left > 0 ? left : nil
        }
        all.giveBack(bytes)
    }
}
