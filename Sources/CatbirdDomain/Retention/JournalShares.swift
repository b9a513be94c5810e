import CatbirdSupport

/// How a journal limit is shared between tenants when the journal holds more than it
/// (docs/operations.md#retention): max-min fairness. Each tenant keeps all it holds up to a
/// share, the largest number such that every tenant's holding capped at it fits in the limit;
/// only the tenants holding more than the share lose their oldest entries, down to it. So a
/// tenant that floods the journal prunes its own entries, and a tenant holding less than the
/// share loses nothing (try9b F2: one pool pruned oldest first let a noisy tenant's 2,000
/// requests in 0.2 s delete a quiet tenant's 10).
enum JournalShares {
    /// What each tenant must lose so that at most `limit` remains in all: the tenants over the
    /// share, each with the amount (rows or bytes) above its keep, largest holdings first. The
    /// share's remainder (the limit less what the shares add up to) is kept by the largest
    /// holders, one unit each, so exactly `limit` remains.
    /// - Parameters:
    ///   - held: what each tenant holds (rows or bytes), every value at least 0.
    ///   - limit: what all tenants together may keep, at least 0.
    /// - Returns: empty when everything fits.
    static func cuts(_ held: [TenantID: Int], keeping limit: Int) -> [(tenant: TenantID, cut: Int)] {
        let total = held.values.reduce(0, +)
        guard total > limit else { return [] }
        // Smallest first; ties by id, so the same holdings always give the same cuts.
        let ascending = held.sorted { $0.value != $1.value ? $0.value < $1.value : $0.key.rawValue < $1.key.rawValue }
        var left = max(0, limit)
        var index = 0
        while index < ascending.count, ascending[index].value <= left / (ascending.count - index) {
            left -= ascending[index].value
            index += 1
        }
        let over = ascending[index...].reversed()  // largest first
        let share = left / over.count
        var extra = left - share * over.count
        return over.map { tenant, holding in
            var keep = share
            if extra > 0 {
                keep += 1
                extra -= 1
            }
            return (tenant, holding - keep)
        }
    }
}
