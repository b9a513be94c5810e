import CatbirdStorage

/// The entries ``JournalWriter`` holds out of its queue because their tenant's large entries
/// already fill its share (``JournalWriter/tenantShareBytes``), one line per tenant, each in
/// the order its entries came. Not thread-safe: the writer keeps it under its lock.
struct HeldAppends {
    struct Held {
        var entry: JournalEntry
        /// ``JournalWriter/queuedSize(of:)`` of `entry`.
        var bytes: Int
        var since: ContinuousClock.Instant
        var hold: JournalHold
    }

    /// Held entries by tenant, oldest first; a tenant with none is absent.
    private var lines: [TenantID: [Held]] = [:]
    /// The tenants with held entries, in the order they are offered room (round robin).
    private var order: [TenantID] = []
    /// Entries held, in all.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Whether `tenant` has entries held (a later one of its entries is held behind them).
    func holds(_ tenant: TenantID) -> Bool { lines[tenant] != nil }

    mutating func add(_ held: Held) {
        let tenant = held.entry.tenant
        if lines[tenant] == nil { order.append(tenant) }
        lines[tenant, default: []].append(held)
        count += 1
    }

    /// Offers each tenant's held entries, in order, to `take`, which returns whether it took
    /// the entry (then it is removed): the tenants take turns one entry at a time, so one
    /// tenant's line does not go before another's, and a tenant's line stops at its first entry
    /// not taken. The tenant offered first goes last next time.
    mutating func admit(_ take: (Held) -> Bool) {
        var blocked = Set<TenantID>()
        var first: TenantID?
        while blocked.count < order.count {
            for tenant in order where !blocked.contains(tenant) {
                guard let held = lines[tenant]?.first, take(held) else {
                    blocked.insert(tenant)
                    continue
                }
                if first == nil { first = tenant }
                count -= 1
                lines[tenant]!.removeFirst()
                if lines[tenant]!.isEmpty {
                    lines[tenant] = nil
                    blocked.insert(tenant)
                }
            }
            order.removeAll { lines[$0] == nil }
            blocked = blocked.filter { lines[$0] != nil }
        }
        if let first, let index = order.firstIndex(of: first) { order.append(order.remove(at: index)) }
    }

    /// Removes and returns the entries held since before `deadline`.
    mutating func removeHeld(before deadline: ContinuousClock.Instant) -> [Held] {
        var removed: [Held] = []
        for (tenant, line) in lines {
            let old = line.prefix { $0.since < deadline }
            guard !old.isEmpty else { continue }
            removed += old
            count -= old.count
            lines[tenant] = old.count == line.count ? nil : Array(line.dropFirst(old.count))
        }
        order.removeAll { lines[$0] == nil }
        return removed
    }
}
