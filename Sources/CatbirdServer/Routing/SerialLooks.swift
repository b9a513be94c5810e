import Synchronization
import CatbirdDomain

/// Runs the looks of a tenant's parked calls (a wait's, a filtered listing's long poll) one at a
/// time on their lane: a look matches the tenant's journal against a pattern or filter, which may
/// take up to its 2-second limit, and a tenant with many parked calls would otherwise keep its
/// whole share of the slow lane busy with looks (docs/tenancy.md#fair-shares). So a tenant's
/// looks hold at most one thread, and its counts, finds and clears keep the other one.
final class SerialLooks: Sendable {
    /// Per tenant with a look running or queued: the looks queued behind the running one, oldest
    /// first (a tenant with none running is absent).
    private let queued = Mutex<[TenantID: [@Sendable () -> Void]]>([:])

    /// Runs `look` on `lane` once the tenant's earlier looks have run.
    func run(on lane: TenantLane, _ look: @escaping @Sendable () -> Void) {
        let key = lane.tenant
        let startsNow = queued.withLock { queued in
            if queued[key] != nil {
                queued[key]!.append(look)
                return false
            }
            queued[key] = []
            return true
        }
        if startsNow { submit(look, on: lane) }
    }

    private func submit(_ look: @escaping @Sendable () -> Void, on lane: TenantLane) {
        lane.run {
            look()
            self.next(on: lane)
        }
    }

    /// Starts the tenant's next queued look, or notes that none runs.
    private func next(on lane: TenantLane) {
        let key = lane.tenant
        let look = queued.withLock { queued -> (@Sendable () -> Void)? in
            guard var waiting = queued[key], !waiting.isEmpty else {
                queued[key] = nil
                return nil
            }
            let first = waiting.removeFirst()
            queued[key] = waiting
            return first
        }
        if let look { submit(look, on: lane) }
    }
}

/// Where a parked call's looks run: a lane, one look of the tenant at a time when `serial` is set
/// (the slow lane's looks, ``SerialLooks``).
struct LookLane: Sendable {
    let lane: TenantLane
    let serial: SerialLooks?

    /// Queues `look` in the tenant's turn (behind the tenant's other looks when serial).
    func run(_ look: @escaping @Sendable () -> Void) {
        if let serial { serial.run(on: lane, look) } else { lane.run(look) }
    }
}
