import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation
import Synchronization

/// One tenant's ``MockTable`` behind its own lock, with the hits and remaining limits that
/// serving changes.
///
/// A request is matched on a snapshot of the table taken under the lock (one shared, immutable
/// copy per table version, made by the first request after a change) and evaluated **outside** it, so a slow pattern never holds the lock
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

    /// The table as it was at one version, shared by the requests matched on it.
    private final class Snapshot: Sendable {
        let table: MockTable
        let version: UInt64
        /// Built by the first unmatched request that needs it, under this lock (so hits, which
        /// never need it, are not held up), then shared by the later ones; with the catalog of
        /// an earlier version to build it from (``NearMissCatalog/init(_:reusing:)``), let go
        /// once it is built.
        private let catalog: Mutex<(built: NearMissCatalog?, base: NearMissCatalog?)>
        /// Set once ``nearMissCatalog`` is built: read without waiting for a build under way.
        private let catalogBuilt = Atomic<Bool>(false)

        init(table: MockTable, version: UInt64, catalogBase: NearMissCatalog?) {
            self.table = table
            self.version = version
            catalog = Mutex((nil, catalogBase))
        }

        /// ``MockTable/firstMatch(method:target:headerValue:body:deadline:slice:fallback:outOfTime:skipped:)`` on
        /// `table`, read in place (called as `snapshot.table.firstMatch`, the table was copied,
        /// a retain and a release of each of its parts, on every request).
        func firstMatch(
            method: String, target: String, headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant,
            slice: RegexpSlice = .whole, fallback: Bool = false, outOfTime: (Mock) -> Void, skipped: (Mock) -> Void = { _ in }
        ) -> Int64? {
            table.firstMatch(
                method: method, target: target, headerValue: headerValue, body: body, deadline: deadline, slice: slice,
                fallback: fallback, outOfTime: outOfTime, skipped: skipped)
        }

        /// ``MockTable/urlCandidates(for:)`` on `table`, read in place (as ``firstMatch(method:target:headerValue:body:deadline:slice:outOfTime:)``).
        func urlCandidates(for target: String) -> [Int64] {
            table.urlCandidates(for: target)
        }

        /// ``MockTable/equalURLMocks(_:)`` of each of `urls()` on `table`, in that order;
        /// `urls` is not called when the table has no equal-URL mock.
        func equalURLMocks(_ urls: () -> [String]) -> [Int64] {
            table.hasEqualURLs ? urls().flatMap { table.equalURLMocks($0) } : []
        }

        var nearMissCatalog: NearMissCatalog {
            catalog.withLock { catalog in
                if let built = catalog.built { return built }
                let built = NearMissCatalog(table.byID.values, reusing: catalog.base)
                catalog = (built, nil)
                catalogBuilt.store(true, ordering: .releasing)
                return built
            }
        }

        /// Whether ``nearMissCatalog`` is built (false while a build is under way).
        var hasNearMissCatalog: Bool { catalogBuilt.load(ordering: .acquiring) }

        /// ``nearMissCatalog`` once built (nil before, or while a build is under way: never waits for one).
        var builtNearMissCatalog: NearMissCatalog? {
            hasNearMissCatalog ? catalog.withLock { $0.built } : nil
        }
    }

    private struct State {
        private(set) var table = MockTable()
        /// Raised whenever a mock is added or removed: a snapshot of an older version is stale.
        private(set) var version: UInt64 = 0
        var usage: [Int64: Usage] = [:]
        /// Refundable hits (delayed ones, the matching lane's, strict durability's) not yet
        /// settled nor refunded, by mock id: while a mock has any, it can come back.
        var unsettled: [Int64: Int] = [:]
        /// Used-up mocks that still have unsettled hits, as their last hit left them (hits
        /// counted, no use left): brought back by ``TenantMocks/refund(_:)`` when one of those
        /// hits is given back, dropped once the last of them is settled (``TenantMocks/settle(_:)``),
        /// found by ``TenantMocks/mock(identity:)`` so that `update` and `remove` reach
        /// their rows.
        var pendingExhausted: [Int64: Mock] = [:]
        /// The mocks whose limit the latest hits used up, oldest first, at most
        /// ``TenantMocks/usedUpKept``: a 404 that one of them matches says so (``usedUpMatch(method:target:headerValue:body:deadline:)``).
        var usedUp: [UsedUpMock] = []
        /// The snapshot of the current version, once a request asked for it.
        var snapshot: Snapshot?
        /// The latest near-miss catalog built, for the next version's to be built from
        /// (``NearMissCatalog/init(_:reusing:)``: a change costs the next 404 the mocks it
        /// changed, not the whole table; tester finding try10b F10). Kept only for a table of at
        /// least ``TenantMocks/catalogBaseMinimum`` mocks, and only while the mocks removed since
        /// (which it still holds) hold at most ``TenantMocks/catalogBaseRetiredShare`` of the
        /// table's bytes (or 1 MiB).
        var catalogBase: NearMissCatalog?
        /// ``MockTable/removedBytes`` when ``catalogBase`` was built.
        var removedBytesAtBase = 0
        /// Raised after each change of this table, as of every tenant's (``MockStore/generation``).
        let generation: MockTablesGeneration

        init(table: MockTable, generation: MockTablesGeneration) {
            self.table = table
            self.generation = generation
        }

        /// Adds or removes mocks: drops the snapshot first (so that, when no request holds it
        /// any more, the table is changed in place rather than copied) and raises the version;
        /// raises the tables' generation once the change is made.
        mutating func changeTable<T>(_ body: (inout MockTable) -> T) -> T {
            if let built = snapshot?.builtNearMissCatalog {
                catalogBase = built
                removedBytesAtBase = table.removedBytes
            }
            snapshot = nil
            version &+= 1
            defer { generation.raise() }
            let result = body(&table)
            if catalogBase != nil, table.count < TenantMocks.catalogBaseMinimum
                || table.removedBytes - removedBytesAtBase > max(1 << 20, table.heldBytes / TenantMocks.catalogBaseRetiredShare) {
                catalogBase = nil
            }
            return result
        }

        /// Forgets every mock (a later version, so snapshots of the old table are stale).
        mutating func clear() {
            snapshot = nil
            version &+= 1
            table = MockTable()
            catalogBase = nil
            usage = [:]
            unsettled = [:]
            pendingExhausted = [:]
            usedUp = []
            generation.raise()
        }

        /// Forgets the usage of a mock that was removed or replaced: hits of it still unsettled
        /// are then refunded to nothing (``TenantMocks/refund(_:)`` finds no mock).
        mutating func forgetUsage(of id: Int64) {
            usage[id] = nil
            unsettled[id] = nil
            pendingExhausted[id] = nil
        }

        /// One of the mock's unsettled hits ends (settled or refunded); with the last one a
        /// used-up mock can no longer come back.
        /// - Returns: whether the mock had one (false: it was removed or replaced meanwhile).
        mutating func endUnsettled(_ id: Int64) -> Bool {
            guard let count = unsettled[id] else { return false }
            unsettled[id] = count > 1 ? count - 1 : nil
            return true
        }

        /// Lets ``catalogBase`` go once `snapshot`, still the current one, has built its catalog:
        /// the next change takes that one (``changeTable(_:)``).
        mutating func letGoCatalogBase(builtOn snapshot: Snapshot) {
            if self.snapshot === snapshot, snapshot.hasNearMissCatalog { catalogBase = nil }
        }

        mutating func currentSnapshot() -> Snapshot {
            if let snapshot { return snapshot }
            let made = Snapshot(table: table, version: version, catalogBase: catalogBase)
            snapshot = made
            return made
        }

        func current(_ mock: Mock) -> Mock {
            guard let usage = usage[mock.id] else { return mock }
            var current = mock
            current.hits = usage.hits
            current.remainingLimit = usage.remainingLimit
            return current
        }
    }

    private let state: Mutex<State>

    /// A table of `mocks` (none: empty) whose changes raise `generation` (``MockStore/generation``).
    init(_ mocks: [Mock] = [], generation: MockTablesGeneration) {
        state = Mutex(State(table: MockTable(mocks), generation: generation))
    }

    /// Reads the table under its lock (the table's hits and limits are those the mocks were
    /// inserted with; ``ordered`` gives the current ones).
    func read<T>(_ body: (MockTable) -> T) -> T {
        state.withLock { body($0.table) }
    }

    /// Whether the table holds no mock (a used-up one whose delayed answer still waits is not in it).
    var isEmpty: Bool {
        state.withLock { $0.table.byID.isEmpty }
    }

    /// How many mocks the table holds and how many bytes of response bodies and patterns
    /// (`now`, ``Mock/heldBytes``), and the same without the mock with id `replacing` (`kept`;
    /// nil or an unknown id: `now`), read under one lock; what ``TenantMockLimits`` bounds.
    func footprint(replacing: Int64?) -> (now: (mocks: Int, bytes: Int), kept: (mocks: Int, bytes: Int)) {
        state.withLock { state in
            let now = (mocks: state.table.count, bytes: state.table.heldBytes)
            guard let replacing, let replaced = state.table.byID[replacing] else { return (now, now) }
            return (now, (now.mocks - 1, now.bytes - replaced.heldBytes))
        }
    }

    /// All mocks in match order, hits and remaining limits current.
    var ordered: [Mock] {
        state.withLock { state in state.table.ordered.map(state.current) }
    }

    /// The mocks as `GET /catbird/api/mocks` lists them: ``ordered``, and at their positions
    /// the used-up mocks whose delayed answers still wait (``State/pendingExhausted``, as their
    /// last hit left them: `remainingLimit` 0, that hit counted), which `update`, `remove` and
    /// the by-id routes reach too. A `limit: 1` mock with a `delay` left the listing when its
    /// request arrived, and the journal has the request only once the delay ends, so nothing
    /// showed the request had come (tester finding tester50b-F7; docs/protocol.md#delays).
    var listed: [Mock] {
        state.withLock { state in
            let mocks = state.table.ordered.map(state.current)
            guard !state.pendingExhausted.isEmpty else { return mocks }
            return (mocks + state.pendingExhausted.values).sorted { $0.position < $1.position }
        }
    }

    /// The id of the first mock that matches the request, found on a snapshot outside the
    /// lock (a slow pattern holds up no one else), with no hit counted: whether this tenant
    /// would have answered it (near misses' `matchingTenants`). With `slice` (``MockTable/firstMatch(method:target:headerValue:body:deadline:slice:outOfTime:)``)
    /// an expression still running at `deadline` ends the search with nil; each mock whose
    /// expression was stopped (or not started) is passed to `outOfTime`.
    func firstMatch(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant,
        slice: RegexpSlice = .whole, outOfTime: (Mock) -> Void = { _ in }
    ) -> Int64? {
        let snapshot = state.withLock { $0.currentSnapshot() }
        return snapshot.firstMatch(
            method: method, target: target, headerValue: headerValue, body: body, deadline: deadline, slice: slice,
            outOfTime: outOfTime)
    }

    /// The ids of the current table's mocks whose url may match `target`
    /// (``MockTable/urlCandidates(for:)``) and its mocks as near misses compare them (hits and
    /// limits as inserted: near misses show neither). The table is read in place, not copied.
    ///
    /// Once the catalog is built from the earlier one (``State/catalogBase``), that one is let
    /// go: the next change builds from this one. It was kept until the next change, two
    /// catalogs of a large table alive at once (100-150 bytes a mock each).
    ///
    /// `slipURLs`: urls whose equal-URL mocks are wanted as well (``NearMissSlips/urls(of:)``),
    /// returned as `slipCandidates`; not called for a table without equal-URL mocks.
    func nearMissView(
        for target: String, slipURLs: () -> [String] = { [] }
    ) -> (candidates: [Int64], slipCandidates: [Int64], catalog: NearMissCatalog) {
        let (snapshot, hasBase) = state.withLock { ($0.currentSnapshot(), $0.catalogBase != nil) }
        let catalog = snapshot.nearMissCatalog
        if hasBase { state.withLock { $0.letGoCatalogBase(builtOn: snapshot) } }
        return (snapshot.urlCandidates(for: target), snapshot.equalURLMocks(slipURLs), catalog)
    }

    /// How many mocks the current version's near-miss catalog is still to be built from (its
    /// first miss builds it, ``nearMissView(for:)``): the table's count, or 0 once it is built.
    /// Never waits for a build under way.
    var nearMissCatalogToBuild: Int {
        state.withLock { state in
            if let snapshot = state.snapshot, snapshot.hasNearMissCatalog { return 0 }
            return state.table.count
        }
    }

    /// The mock whose pattern has `identity` (``MockTable/mock(identity:)``) with its current
    /// hits and remaining limit (``State/current(_:)``, as the listing shows them), or a used-up
    /// one with it whose delayed answer still waits.
    func mock(identity: RequestPattern.Identity) -> Mock? {
        state.withLock { state in
            state.table.mock(identity: identity).map(state.current) ?? state.pendingExhausted.values.first { $0.identity == identity }
        }
    }

    /// The mock with this id, or a used-up one with it whose delayed answer still waits.
    func mock(id: Int64) -> Mock? {
        state.withLock { state in state.table.byID[id] ?? state.pendingExhausted[id] }
    }

    /// Adds `mock`, first removing the mock with id `replacing` (update in place).
    func insert(_ mock: Mock, replacing: Int64?) {
        state.withLock { state in
            if let replacing { state.forgetUsage(of: replacing) }
            state.changeTable { table in
                if let replacing { table.remove(id: replacing) }
                table.insert(mock)
            }
        }
    }

    /// Removes the mock with this id, if it is still there.
    func remove(id: Int64) {
        state.withLock { state in
            let pending = state.pendingExhausted[id] != nil
            state.forgetUsage(of: id)
            guard !pending, state.table.byID[id] != nil else { return }
            state.changeTable { _ = $0.remove(id: id) }
        }
    }

    /// Removes every mock.
    /// - Returns: how many there were.
    @discardableResult
    func clear() -> Int {
        state.withLock { state in
            defer { state.clear() }
            return state.table.count
        }
    }

    /// Finds the first mock matching the request (outside the lock), counts the hit, and
    /// removes the mock when this hit uses up its limit. A mock whose regular expression was
    /// stopped at `deadline` counts as not matching and is passed to `outOfTime` (once, for the
    /// table state that decided the answer); with `slice` the first such mock ends the
    /// search with nil and no hit counted (the caller matches the request again later, with
    /// more time). With `refundable`, as a delayed hit always is, the hit can be given back
    /// (``refund(_:)``) until it is settled (``settle(_:)``); the caller must do one of the two.
    /// So can a hit whose mock's response body has `refundableFromBody` bytes or more (default
    /// `Int.max`: none), for a caller whose answer may be held only when it is large.
    /// `fallback` and `skipped`: for another tenant's request matched against the default
    /// tenant's table, as ``MockTable/firstMatch(method:target:headerValue:body:deadline:slice:fallback:outOfTime:skipped:)``
    /// says (mocks skipped are passed once, like `outOfTime`'s).
    func serve(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant,
        slice: RegexpSlice = .whole, refundable: Bool = false, refundableFromBody: Int = .max, fallback: Bool = false,
        outOfTime: (Mock) -> Void, skipped: (Mock) -> Void = { _ in }
    ) -> MockHit? {
        while true {
            let snapshot = state.withLock { $0.currentSnapshot() }
            let version = snapshot.version
            var stopped: [Mock] = []
            var passedOver: [Mock] = []
            let found = snapshot.firstMatch(
                method: method, target: target, headerValue: headerValue, body: body, deadline: deadline,
                slice: slice, fallback: fallback, outOfTime: { stopped.append($0) }, skipped: { passedOver.append($0) })
            guard let id = found else {
                stopped.forEach(outOfTime)
                passedOver.forEach(skipped)
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
                let isRefundable = refundable || hit.isDelayed || hit.responseBody.count >= refundableFromBody
                if isRefundable { state.unsettled[id, default: 0] += 1 }
                // Remembered only when small: a used-up mock is outside the tenant's byte bound, so
                // 100 shards cycling 40 MB `limit: 1` mocks would hold 16 GB (review of try9a F1's change).
                if exhausted, hit.responseBody.count <= Self.usedUpBodyLimit {
                    state.usedUp.append(UsedUpMock(mock: hit, at: Timestamp.string(from: Date())))
                    if state.usedUp.count > Self.usedUpKept { state.usedUp.removeFirst() }
                }
                if exhausted {
                    Self.anyUsedUp.store(true, ordering: .relaxed)
                    state.usage[id] = nil
                    state.changeTable { _ = $0.remove(id: id) }
                    // This hit or an earlier one may still be given back.
                    if state.unsettled[id] != nil { state.pendingExhausted[id] = hit }
                } else {
                    state.usage[id] = Usage(hits: hit.hits, remainingLimit: hit.remainingLimit)
                }
                return MockHit(mock: hit, isRefundable: isRefundable)
            }
            if let hit {
                stopped.forEach(outOfTime)
                passedOver.forEach(skipped)
                return hit
            }
            // A mock was added or removed while this request was matched: match again.
        }
    }

    /// The fewest mocks a table has for its near-miss catalog to be kept as the next one's
    /// base (``State/catalogBase``): ``MockStore/nearMissCatalogWorkerLimit`` (1,000); a smaller
    /// table's catalog is built anew in milliseconds.
    static let catalogBaseMinimum = MockStore.nearMissCatalogWorkerLimit
    /// A kept base is let go once the mocks removed since it was built hold more than this
    /// fraction of the table's bytes (1/8), or 1 MiB when that is more.
    static let catalogBaseRetiredShare = 8

    /// Used-up mocks a table remembers for its 404s at most: 4 (the latest).
    static let usedUpKept = 4
    /// The largest response body of a used-up mock remembered: 64 KiB (so a tenant's
    /// remembered mocks hold at most 256 KiB of bodies beyond its byte bound).
    static let usedUpBodyLimit = 64 * 1024
    /// Set once any table of the process remembers a used-up mock: until then a 404 looks up
    /// no table for them (one atomic load).
    static let anyUsedUp = Atomic<Bool>(false)

    /// The latest of the mocks recently used up by their limit (``State/usedUp``) that
    /// matches the request, or nil; an expression still running at `deadline` counts as not
    /// matching, as does one `slice` does not let start. Evaluated outside the lock.
    func usedUpMatch(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant,
        slice: RegexpSlice
    ) -> UsedUpMock? {
        let usedUp = state.withLock { $0.usedUp }
        return usedUp.reversed().first { usedUp in
            usedUp.mock.definition.evaluate(
                method: method, target: target, headerValue: headerValue, body: body, until: deadline, slice: slice) == .matched
        }
    }

    /// Gives back a refundable hit (``MockHit/isRefundable``; nothing for another) whose response
    /// was never sent (its client hung up during the delay, or the server withheld it): one hit
    /// less, one more use left. A used-up mock comes back at its
    /// position, with the uses given back so far, unless it was removed or replaced meanwhile;
    /// so, whatever order its hits end in, a mock ends with `hits` = answers sent and
    /// `remainingLimit` = its limit − answers sent (README.md, ResponseMock `delay`).
    func refund(_ hit: MockHit) -> Refund {
        state.withLock { state in
            let id = hit.mock.id
            guard hit.isRefundable, state.endUnsettled(id) else { return .removed }
            if let mock = state.table.byID[id] {
                let current = state.current(mock)
                state.usage[id] = Usage(hits: max(current.hits - 1, 0), remainingLimit: current.remainingLimit.map { $0 + 1 })
                return .restored
            }
            guard var mock = state.pendingExhausted.removeValue(forKey: id) else { return .removed }
            guard state.table.mock(identity: mock.identity) == nil else {
                state.forgetUsage(of: id)
                return .displaced
            }
            state.usedUp.removeAll { $0.mock.id == id }
            mock.hits = max(mock.hits - 1, 0)
            mock.remainingLimit = (mock.remainingLimit ?? 0) + 1
            state.usage[id] = Usage(hits: mock.hits, remainingLimit: mock.remainingLimit)
            state.changeTable { $0.insert(mock) }
            return .restored
        }
    }

    /// What ``refund(_:)`` did with a hit.
    enum Refund {
        /// The use is back: the mock is in the table.
        case restored
        /// The mock was removed or replaced meanwhile (its row went with it): nothing to give back.
        case removed
        /// The used-up mock could not come back, another mock having its pattern: its row is
        /// the caller's to delete.
        case displaced
    }

    /// Records that a refundable hit's response was sent (nothing for a hit that is not
    /// ``MockHit/isRefundable``): it can no longer be given back; a used-up mock whose last
    /// unsettled hit this was is gone for good. Each refundable hit is settled or refunded
    /// once: a second call would end another hit's turn.
    func settle(_ hit: MockHit) {
        guard hit.isRefundable else { return }
        state.withLock { state in
            let id = hit.mock.id
            guard state.endUnsettled(id), state.unsettled[id] == nil else { return }
            state.pendingExhausted[id] = nil
        }
    }
}
