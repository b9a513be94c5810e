import CatbirdStorage

/// The entries ``JournalWriter`` holds out of its queue because their tenant's large entries
/// already fill its share (``JournalWriter/tenantShareBytes``), one line per tenant, each in
/// the order its entries came. Not thread-safe: the writer keeps it under its lock.
struct HeldAppends {
    struct Held {
        var entry: JournalEntry
        /// ``JournalWriter/queuedSize(of:)`` of `entry`.
        var bytes: Int
        /// Since when, while the writer fails, the queue has had no room for `entry` (without
        /// its bodies, as it would be queued then): what a plain append that found the queue
        /// full would have waited for (``JournalWriter/appendPatience``). Nil while there is
        /// room, or the writer succeeds.
        var noRoomSince: ContinuousClock.Instant?
        var hold: JournalHold
        /// When `entry` was held; nil for a replacement (``replace(_:of:with:bytes:)``), whose
        /// answer no longer waits: it counts its own time.
        var since: ContinuousClock.Instant? = .now

        /// `entry` as it is queued `now`: its `durationMs` counts the time it was held, during
        /// which its answer waited too (the answer leaves once it is queued; tester25a-F10: a
        /// 9 s wait journaled as 0.08 ms, while the log line said 10013 ms). A replacement's
        /// stays as made (tester26b-F1: the 499 of a client that left 0.5 s in said 3,896 ms,
        /// the whole hold).
        func entryQueued(now: ContinuousClock.Instant) -> JournalEntry {
            guard let since else { return entry }
            var queued = entry
            queued.durationMs += (now - since) / .milliseconds(1)
            return queued
        }
    }

    /// Held entries by tenant, oldest first; a tenant with none is absent.
    private var lines: [TenantID: [Held]] = [:]
    /// The tenants with held entries, in the order they are offered room (round robin).
    private var order: [TenantID] = []
    /// Entries held, in all.
    private(set) var count = 0
    /// Whether an entry may have its `noRoomSince` set (``forgetNoRoom()`` has work).
    private var notedNoRoom = false

    var isEmpty: Bool { count == 0 }

    /// Whether `tenant` has entries held (a later one of its entries is held behind them).
    func holds(_ tenant: TenantID) -> Bool { lines[tenant] != nil }

    mutating func add(_ held: Held) {
        let tenant = held.entry.tenant
        if lines[tenant] == nil { order.append(tenant) }
        lines[tenant, default: []].append(held)
        count += 1
        if held.noRoomSince != nil { notedNoRoom = true }
    }

    /// Puts `entry` of `bytes` in place of the held entry of `hold` (in `tenant`'s line), keeping
    /// its place; false when `hold`'s entry is not held (queued or dropped already).
    mutating func replace(_ hold: JournalHold, of tenant: TenantID, with entry: JournalEntry, bytes: Int) -> Bool {
        guard let index = lines[tenant]?.firstIndex(where: { $0.hold === hold }) else { return false }
        lines[tenant]?[index].entry = entry
        lines[tenant]?[index].bytes = bytes
        lines[tenant]?[index].since = nil
        return true
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

    /// Removes and returns the held entries that have found no room for `patience`, as a
    /// plain append that finds the queue full drops its entry (``JournalWriter/append(_:)``:
    /// called only while the writer fails); never one that `admits` (the writer's rule while it
    /// fails: the whole queue's room for the entry without its bodies) would queue now,
    /// however long it was held. Notes, in each kept entry, since when it has found no room
    /// (from `now`); forgets it when it has.
    mutating func removeStarved(
        now: ContinuousClock.Instant, patience: Duration, admits: (Held) -> Bool
    ) -> [Held] {
        var removed: [Held] = []
        for (tenant, line) in lines {
            var kept: [Held] = []
            kept.reserveCapacity(line.count)
            for var held in line {
                if admits(held) {
                    held.noRoomSince = nil
                } else if let since = held.noRoomSince, now - since >= patience {
                    removed.append(held)
                    continue
                } else if held.noRoomSince == nil {
                    held.noRoomSince = now
                    notedNoRoom = true
                }
                kept.append(held)
            }
            count -= line.count - kept.count
            lines[tenant] = kept.isEmpty ? nil : kept
        }
        order.removeAll { lines[$0] == nil }
        return removed
    }

    /// Forgets, in every held entry, since when it found no room (the writer succeeds again:
    /// a plain append's patience counts only while the writer fails).
    mutating func forgetNoRoom() {
        guard notedNoRoom else { return }
        notedNoRoom = false
        for tenant in order where lines[tenant]?.contains(where: { $0.noRoomSince != nil }) == true {
            for index in lines[tenant]!.indices { lines[tenant]![index].noRoomSince = nil }
        }
    }
}
