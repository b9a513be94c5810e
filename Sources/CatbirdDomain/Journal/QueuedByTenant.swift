import CatbirdStorage

/// The entries and bytes (``JournalWriter``'s `queuedSize`) each tenant has in the journal
/// writer's queue: what tells, while the writer is stuck and the queue full, a tenant that fills
/// it from one with few entries queued (JournalWriter's `State.roomWhileStuck`, tester25a-F9).
/// Counted only then: built from the queue when first asked, then kept up to date by each entry
/// queued and taken until a round commits, so the usual appends (the writer succeeds) pay nothing
/// for it. Not thread-safe: the writer keeps it under its lock.
struct QueuedByTenant {
    /// What one tenant has queued.
    struct Queued {
        var entries = 0
        var bytes = 0
    }

    /// By tenant; a tenant with nothing queued is absent.
    private var tenants: [TenantID: Queued] = [:]
    /// All tenants' together.
    private(set) var total = Queued()

    /// Whether `tenant` is one that fills the queue: it has entries queued, and at least half
    /// the entries or bytes queued per tenant with any (tester26b-F5: 32 shards flooding alike
    /// are each at about the mean, where a sixteenth of the queue, the first rule, spared them
    /// all, while a tenant sending a hit now and then stays far below it).
    func fills(_ tenant: TenantID) -> Bool {
        guard let own = tenants[tenant] else { return false }
        return own.entries * 2 * tenants.count >= total.entries || own.bytes * 2 * tenants.count >= total.bytes
    }

    /// Counts an entry of `bytes` of `tenant` as queued.
    mutating func add(_ bytes: Int, of tenant: TenantID) {
        var queued = tenants[tenant] ?? Queued()
        queued.entries += 1
        queued.bytes += bytes
        tenants[tenant] = queued
        total.entries += 1
        total.bytes += bytes
    }

    /// Counts an entry of `bytes` of `tenant` as no longer queued.
    mutating func remove(_ bytes: Int, of tenant: TenantID) {
        guard var queued = tenants[tenant] else { return }
        queued.entries -= 1
        queued.bytes -= bytes
        total.entries -= 1
        total.bytes -= bytes
        tenants[tenant] = queued.entries > 0 ? queued : nil
    }
}
