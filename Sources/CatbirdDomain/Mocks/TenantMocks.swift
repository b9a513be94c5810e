import Synchronization

/// One tenant's ``MockTable`` behind its own lock, with the hits and remaining limits that
/// serving changes.
///
/// A request is matched on a snapshot of the table taken under the lock (a copy of a few
/// collection references) and evaluated **outside** it, so a slow pattern never holds the lock
/// that other requests of this tenant, or of the tenants falling back to the default tenant's
/// mocks, need. The hit is then recorded under the lock if no mock was added or removed
/// meanwhile; otherwise the request is matched again on the new table, so the answer is always
/// the first match in list order of one table state (docs/matching.md#match-order).
final class TenantMocks: Sendable {
    /// Hits and remaining limit of a mock that has served requests since it was loaded or added.
    private struct Usage {
        var hits: Int
        var remainingLimit: Int?
    }

    private struct State {
        var table = MockTable()
        /// Raised whenever a mock is added or removed: a snapshot of an older version is stale.
        var version: UInt64 = 0
        var usage: [Int64: Usage] = [:]

        func current(_ mock: Mock) -> Mock {
            guard let usage = usage[mock.id] else { return mock }
            var current = mock
            current.hits = usage.hits
            current.remainingLimit = usage.remainingLimit
            return current
        }
    }

    private let state = Mutex(State())

    /// Reads the table under its lock (the table's hits and limits are those the mocks were
    /// inserted with; ``ordered`` gives the current ones).
    func read<T>(_ body: (MockTable) -> T) -> T {
        state.withLock { body($0.table) }
    }

    /// All mocks in match order, hits and remaining limits current.
    var ordered: [Mock] {
        state.withLock { state in state.table.ordered.map(state.current) }
    }

    /// Adds `mock`, first removing the mock with id `replacing` (update in place).
    func insert(_ mock: Mock, replacing: Int64?) {
        state.withLock { state in
            if let replacing {
                state.table.remove(id: replacing)
                state.usage[replacing] = nil
            }
            state.table.insert(mock)
            state.version &+= 1
        }
    }

    /// Removes the mock with this id, if it is still there.
    func remove(id: Int64) {
        state.withLock { state in
            if state.table.remove(id: id) != nil {
                state.usage[id] = nil
                state.version &+= 1
            }
        }
    }

    /// Removes every mock.
    func clear() {
        state.withLock { state in
            state = State(version: state.version &+ 1)
        }
    }

    /// Finds the first mock matching the request (outside the lock), counts the hit, and
    /// removes the mock when this hit uses up its limit. A mock whose regular expression was
    /// stopped at `deadline` counts as not matching and is passed to `outOfTime` (once, for the
    /// table state that decided the answer).
    func serve(
        method: String, target: String, headerValue: (String) -> String?, deadline: ContinuousClock.Instant,
        outOfTime: (Mock) -> Void
    ) -> MockHit? {
        while true {
            let (snapshot, version) = state.withLock { ($0.table, $0.version) }
            var stopped: [Mock] = []
            let found = snapshot.firstMatch(
                method: method, target: target, headerValue: headerValue, deadline: deadline,
                outOfTime: { stopped.append($0) })
            guard let id = found else {
                stopped.forEach(outOfTime)
                return nil
            }
            let hit: MockHit? = state.withLock { state in
                guard state.version == version, let mock = state.table.byID[id] else { return nil }
                var hit = state.current(mock)
                hit.hits += 1
                var exhausted = false
                if let remaining = hit.remainingLimit {
                    hit.remainingLimit = remaining - 1
                    exhausted = remaining <= 1
                }
                if exhausted {
                    state.table.remove(id: id)
                    state.usage[id] = nil
                    state.version &+= 1
                } else {
                    state.usage[id] = Usage(hits: hit.hits, remainingLimit: hit.remainingLimit)
                }
                return MockHit(mock: hit, exhausted: exhausted)
            }
            if let hit {
                stopped.forEach(outOfTime)
                return hit
            }
            // A mock was added or removed while this request was matched: match again.
        }
    }
}
