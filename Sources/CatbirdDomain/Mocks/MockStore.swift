import CatbirdMatching
import CatbirdWire
import CatbirdStorage
import CatbirdSupport
import Dispatch
import Synchronization

/// Every tenant's mock table: served from memory, written through to SQLite.
///
/// Each tenant's table has its own lock (``TenantMocks``), and requests are matched on a
/// snapshot of the table outside it; the map from tenant to table has another lock, held only to
/// look a table up or add or drop one. So a slow pattern (a catastrophic regexp, stopped by
/// the evaluation budget) delays only the request that meets it, never another tenant's, nor
/// the tenants that fall back to the default tenant's mocks.
///
/// A control change (update, remove, removeAll) holds the write connection for its whole
/// duration, commits to SQLite, and only then changes memory, so its 201/204 is sent after the
/// change is durable. A body longer than a piece is written first, a piece per turn on the
/// connection (``MockBodyPieces``), so a large fixture's update holds it for one piece at a time. Serving a request touches memory only; the hit counts and limits it
/// changes are written later by the journal writer (see ``JournalEntry/mockHit``).
public final class MockStore: Sendable {
    private let tables = Mutex(TenantTables())
    private let database: SerialDatabase
    private let changes = MockTablesGeneration()
    /// Bodies longer than a piece, written and swept a piece per transaction.
    private let bodies: MockBodyPieces
    /// What one tenant's mocks may hold; `update` refuses past it.
    let limits: TenantMockLimits
    /// The workers' time the `matchingTenants` searches may take in all (tester30b-F2).
    let crossTenantSearches = CrossTenantSearchAllowance()

    /// A number changed after every change of any tenant's mock table (a mock added, replaced or
    /// removed, a limit used up, a used-up mock given back, a tenant cleared or dropped), never
    /// the same for two stores of one process; hits that leave their mock in place do not change
    /// it. An answer computed from the tables is still the answer while this number is the one
    /// read **before** the computation (``MockTablesGeneration``): the rule of the 404 memo
    /// (docs/matching.md#repeated-misses).
    public var generation: UInt64 { changes.current }

    /// Loads every mock from the `mocks` table, each tenant's table built once from all its
    /// rows (linear in the rows). Mocks already stored are loaded whatever `limits` and
    /// ``CatbirdMatching/MockPatternLimits`` say; they bound later updates. Their regular
    /// expressions are not compiled here (``CatbirdMatching/CompiledRequestPattern/init(stored:)``):
    /// the first request that searches one compiles it, ``compileStoredExpressions(log:stop:)``
    /// the rest (try9b F14), warning of one that does not compile.
    ///
    /// Each row is checked first (docs/schema.md#editing-mocks-rows): its columns must hold the
    /// types and JSON shapes of docs/schema.md#tables, and `check` must accept it (the server
    /// passes the checks of an `update` that stored mocks are held to; by default none).
    /// - Throws: ``UnloadableMockRow`` for the first row that fails (such as one edited with
    ///   `sqlite3`; tester finding tester21b-F7), naming its id and column; or `SQLiteError`.
    public init(
        database: SerialDatabase, limits: TenantMockLimits = TenantMockLimits(),
        check: (RequestPattern, ResponseMock) throws(MockRefusal) -> Void = { _, _ in }
    ) throws {
        self.database = database
        self.limits = limits
        bodies = try MockBodyPieces(database: database)
        let (loaded, superseded) = Self.latestOfEachPattern(try database.use { try MockRecords.loadAll($0, check: check) })
        supersededAtStart = superseded.count
        if !superseded.isEmpty {
            try database.use { db in try db.transaction { for id in superseded { try MockRecords.delete(db, id: id) } } }
            bodies.queueSweep()
        }
        var tables: [TenantID: TenantMocks] = [:]
        // Rows come ordered by tenant, then position: each tenant's are one run.
        var start = loaded.startIndex
        while start < loaded.endIndex {
            let tenant = loaded[start].tenant
            let end = loaded[start...].firstIndex { $0.tenant != tenant } ?? loaded.endIndex
            tables[tenant] = TenantMocks(Array(loaded[start..<end]), generation: changes)
            start = end
        }
        self.tables.withLock { $0 = TenantTables(tables) }
    }

    /// `loaded` (ordered by tenant, then position) with, of each tenant's mocks of one pattern
    /// (``RequestPattern/isSamePattern(as:)``), only the latest added (the highest id): an
    /// `update` replaces a mock of its pattern, so the others are the rows of mocks it replaced
    /// that outlived them. A mock used up by its hits leaves the table at once, while its row
    /// waits for the journal writer to delete it with the entry of its last hit (relaxed
    /// durability: a few milliseconds); an `update` of its pattern meanwhile adds a row at a
    /// new position, and a `kill -9` before the writer commits left both, the used-up mock with
    /// every use back ahead of the acknowledged one (tester finding tester50a-F3).
    /// - Returns: the mocks kept, in `loaded`'s order, and the ids of the others.
    private static func latestOfEachPattern(_ loaded: [Mock]) -> (kept: [Mock], superseded: [Int64]) {
        var latest: [TenantID: [RequestPattern.Identity: Int64]] = [:]
        for mock in loaded {
            latest[mock.tenant, default: [:]][mock.identity] = max(latest[mock.tenant]?[mock.identity] ?? mock.id, mock.id)
        }
        guard latest.values.reduce(0, { $0 + $1.count }) < loaded.count else { return (loaded, []) }
        var kept: [Mock] = []
        var superseded: [Int64] = []
        for mock in loaded {
            if latest[mock.tenant]?[mock.identity] == mock.id { kept.append(mock) } else { superseded.append(mock.id) }
        }
        return (kept, superseded)
    }

    /// How many stored mocks ``init(database:limits:check:)`` deleted because a later mock of
    /// their tenant has their pattern (``latestOfEachPattern(_:)``).
    public let supersededAtStart: Int

    /// How many mocks the `mocks` table holds, of how many tenants: what ``init(database:limits:)``
    /// will load (for a log line before a long load).
    /// - Throws: `SQLiteError`.
    public static func storedCount(in database: SerialDatabase) throws -> (mocks: Int, tenants: Int) {
        try database.use { try MockRecords.count($0) }
    }

    /// How many bodies' pieces no mock pointed at when the store was opened, deleted then: left
    /// by an update cut short (a `kill -9` between its pieces and its row), or by a server that
    /// stopped before sweeping a removed mock's pieces.
    public var bodiesSweptAtStart: Int { bodies.sweptAtStart }

    /// Stops the sweep of unused body pieces (one under way ends after its current piece);
    /// before the write connection closes. What is left is swept at the next start.
    public func stopSweeping() {
        bodies.stop()
    }

    /// Makes every update writing its body in pieces give up before its next piece or its row
    /// (``MockWriteAbandoned``, nothing stored), from now on: called when the server starts to
    /// stop (``MockBodyPieces/abandonWrites()``). An update past that point commits as usual.
    public func abandonWrites() {
        bodies.abandonWrites()
    }

    /// The tenant's mock an `update` of `pattern` replaces (the same pattern,
    /// docs/matching.md#update-replaces-in-place), with its current hits and remaining limit,
    /// or nil when it has none.
    public func mock(withPatternOf pattern: RequestPattern, tenant: TenantID) -> Mock? {
        table(of: tenant)?.mock(identity: pattern.identity)
    }

    /// The tenant's table, or nil when it has none (created first when `creating`).
    func table(of tenant: TenantID, creating: Bool = false) -> TenantMocks? {
        tables.withLock { tables in
            if let table = tables[tenant] { return table }
            guard creating else { return nil }
            let table = TenantMocks(generation: changes)
            tables[tenant] = table
            return table
        }
    }

    /// The tenant's mocks in match order, with its used-up mocks whose delayed answers still
    /// wait (``TenantMocks/listed``).
    public func mocks(of tenant: TenantID) -> [Mock] {
        table(of: tenant)?.listed ?? []
    }

    /// Adds a mock, or replaces in place (same position, new id) the tenant's mock whose
    /// pattern is the same as `pattern` (Catbird 0.11 `update`; header names compared
    /// case-insensitively, a `json` body value as JSON, see ``RequestPattern/isSamePattern(as:)``). The replacement keeps
    /// `pattern` as given, header-name spelling included.
    /// - Throws: `PatternError` for an invalid regular expression or a url or header value
    ///   longer than it can match (``MockPatternLimits``; nothing stored);
    ///   ``TenantMockLimitError`` when the tenant would hold more than ``TenantMockLimits``
    ///   allows (nothing stored); `SQLiteError` when the write fails (nothing changed).
    ///
    /// A body longer than ``MockBodyPieces/pieceSize`` is written first, in pieces, each in a
    /// transaction of its own, and the row pointing at them last: another tenant's change (or
    /// the journal writer) waits for one piece at most, never for the whole body (tester finding
    /// tester22b-F7). Until the row commits no mock has the body; pieces of a write that fails
    /// or is cut short are deleted (``MockBodyPieces/sweep()``), at the latest at the next start.
    ///
    /// `since`: when the change's wait for the write connection began (its request's arrival):
    /// it waits at most ``CatbirdStorage/Database/busyTimeout`` from then for another process's
    /// lock on the file (``CatbirdStorage/SerialDatabase/useWithinBusyTimeout(since:floor:_:)``), as do
    /// the removals below.
    @discardableResult
    public func update(_ pattern: RequestPattern, response: ResponseMock, tenant: TenantID, since: ContinuousClock.Instant = .now) throws -> Mock {
        try MockPatternLimits.check(pattern)
        let compiled = try CompiledRequestPattern(pattern)
        // Copied once, before the write connection is taken (a 30 MiB copy in a debug build
        // held it for 0.1-0.2 s).
        let body = response.body.map { [UInt8]($0) }
        guard let body, MockBodyPieces.isWrittenInPieces(size: body.count) else {
            return try store(compiled, response: response, body: body, tenant: tenant, bodyID: nil, since: since)
        }
        // Refused before its pieces are written when the tenant's bytes are full already
        // (checked again with the row, as the tenant's table may change meanwhile).
        if let refusal = refusal(compiled, response: response, tenant: tenant, replacing: table(of: tenant)?.mock(identity: compiled.identity)) {
            throw refusal
        }
        // Each piece, and the row after them, waits for the lock from its own start: writing
        // 50 MiB in pieces may take longer than 5 s with no lock held by anyone.
        return try bodies.writing(body) { id in
            try store(compiled, response: response, body: body, tenant: tenant, bodyID: id, since: .now)
        }
    }

    /// What ``TenantMockLimits`` says of adding the mock to the tenant's table, replacing `replaced`.
    private func refusal(
        _ compiled: CompiledRequestPattern, response: ResponseMock, tenant: TenantID, replacing replaced: Mock?
    ) -> TenantMockLimitError? {
        let none = (mocks: 0, bytes: 0)
        let (before, kept) = table(of: tenant)?.footprint(replacing: replaced?.id) ?? (now: none, kept: none)
        return limits.refusal(
            tenant: tenant, before: before,
            after: (kept.mocks + 1, kept.bytes + (response.body?.count ?? 0) + compiled.source.heldBytes))
    }

    /// ``update(_:response:tenant:)``'s row, pointing at the body's pieces `bodyID` when it is
    /// in pieces, in one transaction with the replaced mock's deletion, then the table in memory.
    /// `body`: `response.body`'s bytes.
    private func store(
        _ compiled: CompiledRequestPattern, response: ResponseMock, body: [UInt8]?, tenant: TenantID, bodyID: Int64?,
        since: ContinuousClock.Instant
    ) throws -> Mock {
        try database.useWithinBusyTimeout(since: since) { db in
            // Under the write connection, so no other control change moves these. The table's
            // highest position is never lowered while the table exists (a used-up mock's row
            // may outlive it until the journal writer deletes it); removeAll, drop and dropAll
            // delete every row before forgetting the table, so restarting at 1 is safe.
            // A tenant's first mock makes its table only once stored: a refused or failed first
            // update leaves no empty table behind (which the cross-tenant search of every
            // default-tenant miss would then pass over).
            let existing = table(of: tenant)
            let replaced = existing?.mock(identity: compiled.identity)
            let highestPosition = existing?.read(\.highestPosition) ?? 0
            if let refusal = refusal(compiled, response: response, tenant: tenant, replacing: replaced) { throw refusal }
            let position = replaced?.position ?? highestPosition + 1
            let mock = try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                if let replaced { try MockRecords.delete(db, id: replaced.id) }
                return try MockRecords.insert(
                    db, tenant: tenant, position: position, pattern: compiled, response: response, body: body, bodyID: bodyID)
            }
            (existing ?? table(of: tenant, creating: true)!).insert(mock, replacing: replaced?.id)
            if let replaced { releasedBody(of: replaced) }
            return mock
        }
    }

    /// The tenant's mock before `mock` in match order that answers every usual request of its
    /// method (``MockTable/catchAll(method:before:)``), so that `mock` is never served while
    /// it is there; nil when there is none (tester finding try10a F13).
    public func catchAll(before mock: Mock, tenant: TenantID) -> Mock? {
        table(of: tenant)?.read { $0.catchAll(method: mock.patternMethod, before: mock.position) }
    }

    /// The tenant's mock before `mock` in match order with its method and url pattern but no
    /// header or body pattern and no limit (``MockTable/broader(than:before:)``), so that `mock`,
    /// which has header or body patterns, is never served while it is there; nil when there is
    /// none (tester finding T18A-F9).
    public func broader(before mock: Mock, tenant: TenantID) -> Mock? {
        table(of: tenant)?.read { $0.broader(than: mock.identity, before: mock.position) }
    }

    /// The tenant's mock before `mock` of its method and url pattern whose only header pattern
    /// matches every `Host` (``MockTable/anyHost(before:)``), without a body pattern or a limit,
    /// so that `mock` is never served while it is there; nil when there is none.
    public func anyHost(before mock: Mock, tenant: TenantID) -> Mock? {
        table(of: tenant)?.read { $0.anyHost(before: mock) }
    }

    /// The tenant's mock before `mock`, an `equal`-url one, whose `wildcard` or `regexp` url
    /// matches its url, of its method, without header or body patterns and without a limit
    /// (``MockTable/covering(url:method:before:)``), so that `mock` is never served while it is
    /// there; nil when there is none or `mock`'s url is not `equal`.
    public func covering(before mock: Mock, tenant: TenantID) -> Mock? {
        guard mock.patternURL.kind == .equal else { return nil }
        return table(of: tenant)?.read { $0.covering(url: mock.patternURL.value, method: mock.patternMethod, before: mock.position) }
    }

    /// Removes the tenant's mock whose pattern is the same as `pattern` (header names compared
    /// case-insensitively, a `json` body value as JSON, see ``RequestPattern/isSamePattern(as:)``);
    /// nothing when there is none.
    /// - Returns: whether a mock was removed.
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    @discardableResult
    public func remove(_ pattern: RequestPattern, tenant: TenantID, since: ContinuousClock.Instant = .now) throws -> Bool {
        let identity = pattern.identity
        return try remove(tenant: tenant, since: since) { $0.mock(identity: identity) }
    }

    /// Removes the tenant's mock with id `id` (an id of `GET /catbird/api/mocks` or of a journal
    /// entry's `mockId`; a used-up one whose delayed answer still waits too); nothing when the
    /// tenant has none with that id (another tenant's id included).
    /// - Returns: whether a mock was removed.
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    @discardableResult
    public func remove(id: Int64, tenant: TenantID, since: ContinuousClock.Instant = .now) throws -> Bool {
        try remove(tenant: tenant, since: since) { $0.mock(id: id) }
    }

    /// Removes the tenant's mock that `choose` finds in its table (under the write connection,
    /// so no other control change moves it meanwhile): deleted from SQLite, then from memory.
    /// - Returns: whether a mock was removed (false when the tenant has no table or `choose`
    ///   finds none).
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    private func remove(tenant: TenantID, since: ContinuousClock.Instant, choosing choose: (TenantMocks) -> Mock?) throws -> Bool {
        try database.useWithinBusyTimeout(since: since) { db in
            guard let table = table(of: tenant), let existing = choose(table) else { return false }
            try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                try MockRecords.delete(db, id: existing.id)
            }
            table.remove(id: existing.id)
            releasedBody(of: existing)
            return true
        }
    }

    /// Removes all of the tenant's mocks (and no other tenant's); how many it had.
    /// - Throws: `SQLiteError` when the write fails (nothing changed).
    @discardableResult
    public func removeAll(tenant: TenantID, since: ContinuousClock.Instant = .now) throws -> Int {
        try database.useWithinBusyTimeout(since: since) { db in
            try db.transaction {
                try TenantRecords.touch(db, tenant: tenant)
                try MockRecords.deleteAll(db, tenant: tenant)
            }
            return forget(tenant)
        }
    }

    /// How long the regular expressions of one request may run in all: 100 ms
    /// (docs/matching.md#evaluation-budget).
    public static let requestBudget = Duration.milliseconds(100)

    /// Serves a request: the first match among `tenant`'s mocks, else among the default
    /// tenant's (docs/tenancy.md#default-tenant). Counts the hit and removes a mock whose limit runs out.
    ///
    /// The request's regular expressions share a budget of `budget` from the call: a mock whose
    /// expression is still running after it counts as not matching and is passed to `outOfTime`
    /// (docs/matching.md#evaluation-budget). `body` is the request body's bytes (empty for
    /// none), for mocks with a body pattern. With `refundable`, the hit can be given back
    /// (``refund(_:)``) until it is settled (``settle(_:)``), as a delayed hit can: for a
    /// caller that learns only later whether its answer went out (docs/tenancy.md#slow-regular-expressions).
    ///
    /// A default-tenant mock with an expression marked slow is tried for another tenant's
    /// request for at most ``RegexpSlice/length``; stopped, it counts as not matching and is
    /// passed to `skipped`, not `outOfTime` (tester finding try9b F7: its cost is the default
    /// tenant's, ``MockTable/firstMatch(method:target:headerValue:body:deadline:slice:fallback:outOfTime:skipped:)``).
    public func serve(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8] = [],
        budget: Duration = requestBudget, refundable: Bool = false, outOfTime: (Mock) -> Void = { _ in },
        skipped: (Mock) -> Void = { _ in }
    ) -> MockHit? {
        // Counted in this thread's CPU time (``WholeBudget``): which mock answers does not
        // depend on the machine's load.
        let deadline = ContinuousClock.now.advanced(by: budget)
        return WholeBudget.counting(budget, deadline: deadline) {
            serve(
                tenant: tenant, method: method, target: target, headerValue: headerValue, body: body,
                deadline: deadline, slice: .whole, refundable: refundable, outOfTime: outOfTime, skipped: skipped)
        }
    }

    /// ``serve(tenant:method:target:headerValue:body:budget:refundable:outOfTime:skipped:)`` with the deadline
    /// given; with `slice` the first mock stopped at it ends the search with nil, no hit
    /// counted and the default tenant's mocks not tried (``serve(tenant:method:target:headerValue:body:within:refundable:skipped:)``),
    /// except a default-tenant mock skipped for another tenant's request (`skipped`), after
    /// which the search goes on.
    func serve(
        tenant: TenantID, method: String, target: String, headerValue: (String) -> String?, body: [UInt8],
        deadline: ContinuousClock.Instant, slice: RegexpSlice, refundable: Bool = false, refundableFromBody: Int = .max,
        outOfTime: (Mock) -> Void, skipped: (Mock) -> Void = { _ in }
    ) -> MockHit? {
        // The default tenant's table is looked up only when the tenant's own mocks miss (a hit
        // hashes one id, not two); a table found is matched on its snapshot either way.
        let own = tables.withLock { $0[tenant] }
        var overran = false
        func serve(_ table: TenantMocks?, fallback: Bool) -> MockHit? {
            table?.serve(
                method: method, target: target, headerValue: headerValue, body: body, deadline: deadline,
                slice: slice, refundable: refundable, refundableFromBody: refundableFromBody, fallback: fallback,
                outOfTime: { overran = true; outOfTime($0) },
                skipped: skipped)
        }
        var hit = serve(own, fallback: false)
        if hit == nil, !(slice.isSlice && overran), !tenant.isDefault {
            hit = serve(tables.withLock { $0[.defaultTenant] }, fallback: true)
        }
        if let hit, hit.mock.remainingLimit == 0 { usedUp(hit.mock) }
        return hit
    }

    /// Gives back a delayed or refundable hit whose response was never sent (the client hung
    /// up, or the server answered in its place or withheld the answer): the mock counts one
    /// hit less and one more use left, and a mock its hits used up comes back with every use
    /// given back (``TenantMocks/refund(_:)``), unless it was removed or replaced meanwhile
    /// (its row went with it); one that cannot come back has its row deleted. The row is
    /// untouched otherwise: only answers sent are written to it (``MockRecords/recordHits(_:id:count:)``).
    /// Nothing for a hit that is not ``MockHit/isRefundable`` (it stood when counted). Each
    /// refundable hit is refunded or settled once.
    public func refund(_ hit: MockHit) {
        guard table(of: hit.mock.tenant)?.refund(hit) == .displaced else { return }
        try? database.use { try MockRecords.delete($0, id: hit.mock.id) }
        releasedBody(of: hit.mock)
    }

    /// Queues the sweep of the body pieces of `mock`, whose row was just deleted, when its body
    /// was long enough to be in pieces (``MockBodyPieces``).
    private func releasedBody(of mock: Mock) {
        if MockBodyPieces.isWrittenInPieces(size: mock.responseBody.count) { bodies.queueSweep() }
    }

    /// Queues the sweep of body pieces after a mock whose body may be in pieces was used up: its
    /// row is deleted by the journal writer a few milliseconds after the entry of the hit that
    /// used it up is queued, so the sweep runs a second after. That entry is queued once the
    /// answer is sent for a delayed hit (seconds later), so the sweep is queued again then
    /// (``settle(_:)``; tester finding tester24a-F6: a used-up delayed mock's pieces stayed until
    /// some later change).
    func usedUp(_ mock: Mock) {
        if MockBodyPieces.isWrittenInPieces(size: mock.responseBody.count) { bodies.queueSweep(after: .seconds(1)) }
    }

    /// Records that a delayed or refundable hit's response was sent: it can no longer be given
    /// back (its row is updated by the journal entry that carries the hit). Nothing for a hit that
    /// is not ``MockHit/isRefundable``. A hit that used its mock up queues the sweep of its body's
    /// pieces (``usedUp(_:)``), since its entry comes now.
    public func settle(_ hit: MockHit) {
        table(of: hit.mock.tenant)?.settle(hit)
        if hit.isRefundable, hit.mock.remainingLimit == 0 { usedUp(hit.mock) }
    }

    /// ``settle(_:)``, answering `hit` as one that can no longer be given back
    /// (``MockHit/isRefundable`` false), for passing on to code that settles or refunds the
    /// hits that are: each refundable hit is settled or refunded once.
    public func settled(_ hit: MockHit) -> MockHit {
        settle(hit)
        return MockHit(mock: hit.mock, isRefundable: false)
    }

    /// At most `limit` shards' tables (every tenant but the default one) in id order, from the
    /// first whose id comes after `after` (nil: the first shard); for near misses, which look
    /// across tenants. Takes time in `limit`, not in the number of tenants.
    func shardTables(after: TenantID?, limit: Int) -> [(tenant: TenantID, table: TenantMocks)] {
        tables.withLock { $0.shards(after: after, limit: limit) }
    }

    /// How many tenants have a mock table in memory (for `/catbird/metrics`).
    public var tenantTables: Int {
        tables.withLock { $0.count }
    }

    /// Forgets the tenant's mocks in memory after its rows were deleted (tenant drop); how
    /// many it had. A request that looked the table up just before still finds it empty.
    @discardableResult
    func forget(_ tenant: TenantID) -> Int {
        let table = tables.withLock { $0.removeValue(forKey: tenant) }
        let count = table?.clear() ?? 0
        // A large table's memory goes back to the system (tester finding tester34a-F4: after a
        // `removeAll` of 100,000 mocks the server kept 178 of its 220 MB).
        bodies.queueSweep()
        if count >= Self.heapTrimMocks { DispatchQueue.global(qos: .utility).async { HeapTrim.giveBack() } }
        return count
    }

    /// A tenant's table of at least this many mocks, forgotten, has the heap's free pages given
    /// back (``CatbirdSupport/HeapTrim``): 1,000.
    static let heapTrimMocks = 1_000

    /// Forgets every tenant's mocks in memory after all rows were deleted: the map is replaced
    /// at once, so every request that looks a table up from now on finds none; the old tables
    /// are emptied and freed on a background thread. Emptying and freeing 64,000 tenants' tables
    /// took 0.6 s of the answer to a drop of every tenant (debug build); the heap's free pages go
    /// back to the system after (``CatbirdSupport/HeapTrim``). A request that looked
    /// its table up before the drop (it arrived before the answer) may still be matched against
    /// it until that table is emptied, as it was matched against it when it arrived.
    func forgetAll() {
        var all = tables.withLock { tables in
            var all = TenantTables()
            swap(&all, &tables)
            return all
        }
        changes.raise()
        bodies.queueSweep()
        let dropped = DroppedTables(Array(all.values))
        all = TenantTables()
        DispatchQueue.global(qos: .utility).async {
            do {
                let tables = dropped.take()
                for table in tables { table.clear() }
            }
            HeapTrim.giveBack()  // the tables' memory, and what the drop freed before them
        }
    }
}

/// Tables dropped from the map, handed to the thread that empties them: taken out once, so
/// they are freed when that thread is done with them, not when its closure goes.
///
/// Sendable: the tables (Sendable themselves) are behind a lock.
private final class DroppedTables: Sendable {
    private let tables: Mutex<[TenantMocks]>

    init(_ tables: [TenantMocks]) {
        self.tables = Mutex(tables)
    }

    /// The tables, leaving none.
    func take() -> [TenantMocks] {
        tables.withLock { tables in
            defer { tables = [] }
            return tables
        }
    }
}
