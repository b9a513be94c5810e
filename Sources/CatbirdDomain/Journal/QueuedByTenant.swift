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

    /// What `tenant` has queued (nothing when absent).
    subscript(tenant: TenantID) -> Queued { tenants[tenant] ?? Queued() }

    /// Counts an entry of `bytes` of `tenant` as queued.
    mutating func add(_ bytes: Int, of tenant: TenantID) {
        var queued = tenants[tenant] ?? Queued()
        queued.entries += 1
        queued.bytes += bytes
        tenants[tenant] = queued
    }

    /// Counts an entry of `bytes` of `tenant` as no longer queued.
    mutating func remove(_ bytes: Int, of tenant: TenantID) {
        guard var queued = tenants[tenant] else { return }
        queued.entries -= 1
        queued.bytes -= bytes
        tenants[tenant] = queued.entries > 0 ? queued : nil
    }
}
