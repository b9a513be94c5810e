import Synchronization

/// A per-tenant cap on calls in flight: at most ``limit`` calls of one tenant admitted at once
/// (running or waiting for a thread), each holding a ``TenantReservation`` until it answered.
/// What lets a shared server refuse one tenant's burst (429) instead of queueing it in front of
/// everyone (docs/tenancy.md#fair-shares): user SQL (``TenantSQL``) and slow control calls.
public final class TenantAdmission: Sendable {
    /// The most calls of one tenant admitted at once.
    public let limit: Int
    private let admitted = Mutex<[TenantID: Int]>([:])

    /// - Parameter limit: the most calls of one tenant admitted at once (at least 1).
    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A place for one of `tenant`'s calls, or nil when it already has ``limit`` admitted.
    public func admit(_ tenant: TenantID) -> TenantReservation? {
        let admitted = admitted.withLock { counts in
            let count = counts[tenant, default: 0]
            guard count < limit else { return false }
            counts[tenant] = count + 1
            return true
        }
        guard admitted else { return nil }
        return TenantReservation { [self] in
            self.admitted.withLock { counts in
                let count = counts[tenant, default: 1] - 1
                counts[tenant] = count > 0 ? count : nil
            }
        }
    }
}

/// One admitted call's place in a ``TenantAdmission``'s per-tenant count; given back by
/// ``release()`` or when the reservation is released from memory.
///
/// Sendable: its only state is the release closure, run at most once under a lock.
public final class TenantReservation: Sendable {
    private let onRelease: Mutex<(@Sendable () -> Void)?>

    init(_ onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = Mutex(onRelease)
    }

    /// Gives the place back. Idempotent.
    public func release() {
        let action = onRelease.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit {
        release()
    }
}
