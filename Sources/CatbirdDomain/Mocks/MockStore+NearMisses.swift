import CatbirdMatching
import CatbirdSupport
import CatbirdWire

/// What a request nothing answered came close to (docs/matching.md#near-misses).
public struct NearMissReport: Sendable {
    /// One of the closest mocks: the mock, its distance (rounded to 3 decimals, as shown) and
    /// its comparison with the request, fields included (what the 404 writes as a near miss,
    /// ``RequestComparison/writeNearMissJSON(to:distance:mockId:position:tenant:requestJSON:)``).
    public struct Closest: Sendable {
        public let mock: Mock
        public let distance: Double
        public let comparison: RequestComparison
    }

    /// The closest mocks of the request's tenant and of the default tenant, closest first.
    public var closest: [Closest]
    /// Tenants with a mock that matches the request; looked for only when the request carried
    /// no parallel id (the default tenant's request), else empty.
    public var matchingTenants: [TenantID]
    /// How many mocks were compared field by field (edit distance included); the others were
    /// ruled out by a bound.
    public var compared: Int
    /// Why the search ended before it had ruled out or compared every mock, so that a mock
    /// closer than those in ``closest`` may exist (the 404's reason says so); nil when it did not.
    public var cutShort: CutShort? = nil
    /// The mocks the search could have compared (the tenant's and, for a shard, the default
    /// tenant's), and how many of them it looked at (each one's own bound computed, or compared).
    public var mockCount = 0
    public var lookedAt = 0

    /// What ended a near-miss search early.
    public enum CutShort: Sendable, Equatable {
        /// ``MockStore/nearMissWorkBudget`` was spent (the server's searches are given it).
        case budget
        /// ``MockStore/nearMissTimeLimit`` had passed.
        case timeLimit
    }
    /// Whether the report depends on the request and the tables alone: false when the time
    /// limit ended the search early or a regular expression was stopped at its deadline (or not
    /// started within a worker's slice) and counted as differing or not matching. Only a
    /// complete report may be reused for the same request (docs/matching.md#near-misses).
    public var complete: Bool
    /// Whether every other tenant that may be searched for ``matchingTenants`` was searched:
    /// false when ``MockStore/matchingTenantTimeLimit`` (or the whole search's time limit) ended
    /// that search first. Always true for a request with a parallel id.
    public var searchedOtherTenants = true
    /// Whether tenants holding mocks were left unsearched because the first
    /// ``MockStore/nearMissTenantLimit`` by id were (tester finding tester20b-F9: past 100 such
    /// tenants, the 404 of a request from a shard whose tenant sorts later said nothing of it).
    public var otherTenantsPastLimit = false
    /// Whether the search for ``matchingTenants`` did not run because such searches had used
    /// their time in the current second (``CrossTenantSearchAllowance``, tester finding tester30b-F2).
    public var otherTenantsOverAllowance = false
    /// Whether more shards than ``matchingTenants`` (at most ``MockStore/matchingTenantLimit``)
    /// hold a matching mock: the reason says the list is cut.
    public var moreMatchingTenants = false
    /// A recently used-up mock that matches the request (``MockStore/usedUpMatch(tenant:method:target:headerValue:body:)``),
    /// named by the 404's reason; set by the caller.
    public var usedUp: UsedUpMock?
    /// For the first near miss with a `json` or `jsonPath` body pattern the body fails, what the
    /// body lacks (``CompiledBodyPattern/jsonDifference(_:)``), named by the 404's reason; set
    /// by the caller.
    public var bodyDifference: (mockID: Int64, text: String)?
    /// Mocks outside ``closest`` a hint of the 404's reason may name (``NearMissSlips``): each
    /// with its distance when it was compared (1: it differs in its method alone), nil when it
    /// was found by its url without a comparison. At most ``NearMissSlips/limit`` of each kind.
    public var slips: [(mock: Mock, distance: Double?)] = []
    /// The first mock compared (the tenant's own first, then match order) whose method and url
    /// both match the request, so that it differs in header or body fields alone, when it is
    /// not ``closest``'s first: named by the 404's reason wherever it ranks. A url one
    /// character off ranks closer than a missing header (docs/matching.md#near-misses), so with
    /// three sibling urls mocked the mock the app was aimed at fell out of the 404 (tester
    /// finding tester50b-F1).
    public var sameRoute: Closest?
}

extension MockStore {
    /// Near misses reported per request at most: 3.
    public static let nearMissLimit = 3
    /// Other tenants searched for a matching mock at most: 100 (in id order, those with mocks).
    public static let nearMissTenantLimit = 100
    /// Tenants with a matching mock reported at most: 3.
    public static let matchingTenantLimit = 3
    /// Time the ranking of the closest mocks may take: 50 ms of the thread's CPU time
    /// (``ThreadCPULimit``: a worker descheduled on a loaded machine keeps its budget, and the
    /// same request against the same tables is cut short at about the same mock however busy
    /// the machine is); checked before each of the index's candidates, before a block of mocks
    /// or a mock of a block after any mock was compared field by field (headers and body), and
    /// otherwise every 8 blocks, so a request with a huge body and many body patterns, or mocks
    /// with thousands of header patterns, stops early with what it has. Regular expressions
    /// and the search for ``NearMissReport/matchingTenants`` still stop at 50 ms of the wall
    /// clock from the search's start.
    /// (On the wall clock, HeaderLookupScaleTests failed in about 2 % of runs on a busy machine:
    /// its searches of 2,000 mocks were cut short before the mocks it checks.)
    public static let nearMissTimeLimit = Duration.milliseconds(50)
    /// Work a server's near-miss search may do per unmatched request: 2,000 units, one for each
    /// mock whose own bound is computed, one more for each mock compared field by field, and one
    /// for each block whose url columns are read (docs/matching.md#near-misses). The bounds rule
    /// out most mocks of most tables, but not those whose mocks share no field and no url shape
    /// (each naming its own header, try10b F4: 20,000 such mocks cost 11 ms of a shared worker
    /// per 404); the search then stops with the closest found so far, lowest bound first, and
    /// says so (``NearMissReport/cutShort``). Counted, not timed: the same request against the
    /// same tables gets the same answer however loaded the machine is, so it may be kept
    /// (``NearMissReport/complete`` stays true).
    public static let nearMissWorkBudget = 2_000
    /// Time the search of other tenants' mocks for ``NearMissReport/matchingTenants`` may take:
    /// 2 ms of the thread's CPU time (``ThreadCPUTime``: a worker descheduled on a loaded machine
    /// keeps its budget), checked before each tenant. A default-tenant miss whose URL is not ASCII tries every
    /// wildcard and regexp mock of each tenant (docs/matching.md#how-matching-scales), so across
    /// a fleet the search could otherwise hold a worker for the whole time limit on every such
    /// request (docs/tenancy.md#fair-shares).
    public static let matchingTenantTimeLimit = Duration.milliseconds(2)

    /// The closest mocks to a request no mock answered, among all of the tenant's and the
    /// default tenant's mocks, ranked by ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:until:fields:)``
    /// (ties: the tenant's own first, then match order), and, for a request of the default
    /// tenant, the other tenants holding a mock that matches it. Bounded by
    /// ``nearMissTenantLimit`` and ``nearMissTimeLimit``; never called for a request a mock
    /// answered.
    ///
    /// Mocks whose url pattern may match the target (``MockTable/urlCandidates(for:)``) are
    /// compared first. Every other mock's url differs, so its distance is at least the bounds of
    /// ``NearMissCatalog``, plus 0.5 for each header or body field its group or block shares
    /// that the request differs from (``SharedField``, each evaluated once per request, when first
    /// needed): blocks are visited lowest bound first, and a group, block or mock
    /// whose bound cannot beat the third closest so far (ties: rank, then position) is skipped
    /// without an edit distance.
    ///
    /// `regexpSlice`: on a server worker, the regular-expression time the search may take
    /// (docs/tenancy.md#slow-regular-expressions): an expression still running then, or one
    /// that outlasted a slice before, counts as differing (or as not matching, for
    /// `matchingTenants`), so another tenant's slow pattern cannot hold the worker. Nil: up to
    /// ``nearMissTimeLimit``.
    ///
    /// `tables`: the tables as ``nearMissTables(of:)`` found them for the caller's check; nil:
    /// looked up here.
    ///
    /// `budget`: the work the search may do (``nearMissWorkBudget``'s units); nil: no budget.
    /// `timeLimit`: nil: none (a test's exhaustive check, independent of the machine's load);
    /// the other tenants' search for ``NearMissReport/matchingTenants`` keeps its own limit.
    public func nearMisses(
        tenant: TenantID, in tables: NearMissTables? = nil, method: String, target: String, headerValue: (String) -> String?,
        body: [UInt8], regexpSlice: Duration? = nil, budget: Int? = nil, timeLimit: Duration? = nearMissTimeLimit
    ) -> NearMissReport {
        let tables = tables ?? nearMissTables(of: tenant)
        // Built once per table version, by the first miss after a change: not counted in the time limit.
        // The tenant's view and the default tenant's, in locals (an array of them was made per 404).
        // Made at most once, and only for a table with equal-URL mocks (most 404s of a tenant
        // of patterns need none).
        var slipURLs: [String]?
        func slips() -> [String] {
            if let slipURLs { return slipURLs }
            let made = NearMissSlips.urls(of: target)
            slipURLs = made
            return made
        }
        let ownView = tables.own?.nearMissView(for: target, slipURLs: slips)
        let sharedView = tables.shared?.nearMissView(for: target, slipURLs: slips)
        // Without a time limit: a day, longer than any search.
        let limit = timeLimit ?? .seconds(86_400)
        let started = ContinuousClock.now
        let deadline = started.advanced(by: limit)
        // The ranking's own limit, on the thread's CPU time, made at the first check past the
        // search's first millisecond. Until then (most searches end sooner) the wall clock
        // alone answers, against a constant, as `deadline` did: the same cost per check, and
        // no CPU clock, nor the limit's state, for a quick search (made at the start, its setup
        // cost 400-700 instructions per 404, counted with callgrind).
        var cpuLimit: ThreadCPULimit?
        let clockAloneUntil = started.advanced(by: limit < ThreadCPULimit.defaultLead ? limit : ThreadCPULimit.defaultLead)
        let slice: RegexpSlice = regexpSlice != nil ? .comparing : .whole
        let regexpDeadline = regexpSlice.map { min(deadline, ContinuousClock.now.advanced(by: $0)) } ?? deadline
        let probe = NearMissProbe(method: method, target: target)
        var closest = NearMissRanking(limit: Self.nearMissLimit)
        /// Compared mocks whose url matches and that differ in their method alone (``NearMissSlips``), by rank and index.
        var methodSlips: [(rank: Int, index: Int)] = []
        /// The first compared mock whose method and url match (``NearMissReport/sameRoute``): its
        /// rank, position (match order), index and distance.
        var sameRoute: (rank: Int, position: Int64, index: Int, distance: Double)?
        var compared = 0
        /// `compared` when the clock was last read in the block loop.
        var comparedAtClock = 0
        var complete = true
        var cutShort: NearMissReport.CutShort?
        /// Work done so far (``nearMissWorkBudget``'s units), and mocks looked at.
        var spent = 0
        var lookedAt = 0
        let budget = budget ?? Int.max
        /// Whether there is time left for more; when not, the report is not complete.
        func inTime() -> Bool {
            if ContinuousClock.now < clockAloneUntil { return true }
            if cpuLimit == nil { cpuLimit = ThreadCPULimit(limit, from: started) }
            if cpuLimit!.hasTimeLeft() { return true }
            complete = false
            cutShort = .timeLimit
            return false
        }
        /// Whether `units` more work is within the budget; when not, the search ends (a
        /// budget's end leaves the report complete: it depends on the request and tables alone).
        func affords(_ units: Int) -> Bool {
            if spent < budget { spent += units; return true }
            cutShort = cutShort ?? .budget
            return false
        }
        /// Whether the url pattern matches (a regular expression stopped counts as not matching,
        /// and the report is then not complete).
        func urlMatches(_ mock: Mock) -> Bool {
            let outcome = mock.definition.urlOutcome(probe, until: regexpDeadline, slice: slice)
            if outcome == .outOfTime { complete = false }
            return outcome == .matched
        }
        // `rank` is the catalog's place in `catalogs` (0: the request's tenant, 1: the default tenant).
        func compare(_ catalog: NearMissCatalog, rank: Int, index: Int, urlMatches: Bool, urlEdits: Int? = nil) {
            let comparison = catalog.mocks[index].definition.compare(
                probe, headerValue: headerValue, body: body, urlMatches: urlMatches, urlEdits: urlEdits, until: regexpDeadline,
                slice: slice, fields: false)
            if comparison.cutShort { complete = false }
            if urlMatches, comparison.distance == 1, methodSlips.count < NearMissSlips.limit,
               catalog.mocks[index].patternMethod != method {
                methodSlips.append((rank, index))
            }
            if urlMatches, catalog.mocks[index].patternMethod == method,
               sameRoute.map({ (rank, catalog.bounds[index].position) < ($0.rank, $0.position) }) ?? true {
                sameRoute = (rank, catalog.bounds[index].position, index, comparison.distance)
            }
            compared += 1
            spent += 1
            closest.offer(
                distance: comparison.distance, rank: rank, position: catalog.bounds[index].position, index: index, urlMatches: urlMatches,
                urlEdits: urlEdits)
        }

        // Each catalog with the mocks its index named (compared first); at most two (the
        // tenant's, the default tenant's), kept in locals for the block loop.
        var catalogs: [(catalog: NearMissCatalog, candidates: Set<Int>)] = []
        catalogs.reserveCapacity(2)
        /// The equal-URL mocks of ``NearMissSlips/urls(of:)`` of the request's method, by rank and index.
        var urlSlips: [(rank: Int, index: Int)] = []
        var groupCount = 0
        for view in 0..<2 {
            guard let (ids, slipIDs, catalog) = view == 0 ? ownView : sharedView, !catalog.mocks.isEmpty else { continue }
            let rank = catalogs.count
            for id in slipIDs where urlSlips.count < NearMissSlips.limit {
                if let index = catalog.indexByID[id], catalog.mocks[index].patternMethod == method { urlSlips.append((rank, index)) }
            }
            for index in catalog.mixedCaseSlips(of: target) where urlSlips.count < NearMissSlips.limit {
                if catalog.mocks[index].patternMethod == method { urlSlips.append((rank, index)) }
            }
            let candidates = ids.isEmpty ? [] : Set(ids.compactMap { catalog.indexByID[$0] })
            for index in candidates.isEmpty ? [] : candidates.sorted() {
                guard cutShort == nil, inTime(), affords(1) else { break }
                lookedAt += 1
                compare(catalog, rank: rank, index: index, urlMatches: urlMatches(catalog.mocks[index]))
            }
            catalogs.append((catalog, candidates))
            groupCount += catalog.groups.count
        }
        let mockCount = catalogs.reduce(0) { $0 + $1.catalog.mocks.count }
        /// The report of what was found, with why the search ended early (if it did) and how much it looked at.
        /// (The catalogs passed as they are: a `map(\.catalog)` of them was an array made per 404.)
        func finished() -> NearMissReport {
            var finished = report(
                closest: closest, catalogs: catalogs, compared: compared, complete: complete, tenant: tenant, probe: probe,
                headerValue: headerValue, body: body, deadline: deadline, regexpDeadline: regexpDeadline, slice: slice)
            finished.cutShort = cutShort
            finished.mockCount = mockCount
            if let sameRoute, finished.closest.first.map({ !$0.comparison.methodAndURLMatch }) ?? false {
                let mock = catalogs[sameRoute.rank].catalog.mocks[sameRoute.index]
                finished.sameRoute = finished.closest.first { $0.comparison.methodAndURLMatch }
                    ?? NearMissReport.Closest(
                        mock: mock, distance: (sameRoute.distance * 1000).rounded() / 1000,
                        comparison: mock.definition.compare(
                            probe, headerValue: headerValue, body: body, urlMatches: true, until: regexpDeadline, slice: slice,
                            fields: true))
            }
            finished.lookedAt = lookedAt
            if !methodSlips.isEmpty || !urlSlips.isEmpty {
                let shown = Set(finished.closest.map(\.mock.id))
                for (slips, distance) in [(methodSlips, 1.0 as Double?), (urlSlips, nil)] {
                    for (rank, index) in slips {
                        let mock = catalogs[rank].catalog.mocks[index]
                        guard !shown.contains(mock.id), !finished.slips.contains(where: { $0.mock.id == mock.id }) else { continue }
                        finished.slips.append((mock, distance))
                    }
                }
            }
            return finished
        }
        guard let first = catalogs.first, cutShort == nil else { return finished() }
        if mockCount <= Self.nearMissLimit {
            // No more mocks than the ranking keeps: each enters it whatever its distance, so no
            // bound can rule one out, and the groups' heap and the blocks' bounds would be work
            // for nothing (about a quarter of a one-mock tenant's search, counted with callgrind).
            // Each mock the index did not name is compared as the block loop below compares it.
            for (rank, (catalog, candidates)) in catalogs.enumerated() {
                for index in catalog.mocks.indices where !candidates.contains(index) {
                    if compared != comparedAtClock {
                        guard inTime() else { return finished() }
                        comparedAtClock = compared
                    }
                    guard affords(1) else { return finished() }
                    lookedAt += 1
                    compare(catalog, rank: rank, index: index, urlMatches: false, urlEdits: catalog.urlEdits(of: index, for: probe))
                }
            }
            return finished()
        }
        let (catalog0, candidates0) = first
        let (catalog1, candidates1) = catalogs.count > 1 ? catalogs[1] : first
        // The shared fields the request differs from, per catalog, found as groups and blocks are looked at.
        var floors0 = NearMissFloors()
        var floors1 = NearMissFloors()
        /// How many of `fields` (of the catalog of `rank`) the request differs from.
        func differing(_ fields: NearMissCatalog.FieldRange, rank: Int) -> Int {
            guard fields.start < fields.end else { return 0 }
            func outcome(_ field: SharedField) -> MatchOutcome {
                let outcome = field.outcome(headerValue: headerValue, body: body, until: regexpDeadline, slice: slice)
                if outcome == .outOfTime { complete = false }
                return outcome
            }
            return rank == 0
                ? floors0.differing(fields, of: catalog0, outcome: outcome) : floors1.differing(fields, of: catalog1, outcome: outcome)
        }

        // The heap's keys in a buffer of their own rather than in withUnsafeTemporaryAllocation's
        // closure: the locals this loop changes (the ranking, the counts), captured by that
        // closure, had every use checked for exclusive access at run time (about 50
        // swift_beginAccess calls per 404 with 1,000 mocks, counted with callgrind).
        let keys = UnsafeMutableBufferPointer<UInt128>.allocate(capacity: groupCount)
        defer { keys.deallocate() }
        do {
            // Groups are visited lowest bound first (ties: the ranking's order, so that the
            // earlier mocks are met first and the later ones skipped), each group's blocks lowest
            // first position first; a group whose bound cannot enter the ranking ends the search.
            var heap = NearMissGroupHeap(keys)
            for rank in 0..<catalogs.count {
                let catalog = rank == 0 ? catalog0 : catalog1
                for group in catalog.groups.indices {
                    heap.append(bound: catalog.bound(ofGroup: group, for: probe), rank: rank, order: catalog.groups[group].order)
                }
            }
            heap.arrange()
            // The clock is read before a block whose mocks may be looked at when a mock was
            // compared field by field since the last reading (headers and body may take long),
            // else every `clockEvery` such blocks (bounds and edit distances take microseconds).
            let clockEvery = 8
            var sinceClock = 0
            groups: while let (bound, floored, rank, order) = heap.popFirst() {
                guard closest.admits(distance: bound) else { break }
                let catalog = rank == 0 ? catalog0 : catalog1
                let candidates = rank == 0 ? candidates0 : candidates1
                let group = catalog.groups[Int(catalog.groupByOrder[order])]
                // The shared fields the request differs from, counted in every bound of the group's mocks.
                let groupDiffering = differing(group.fields, rank: rank)
                if !floored, groupDiffering > 0 {
                    // Back in the heap with them counted: it comes out again when no group's bound is lower.
                    heap.insert(bound: NearMissCatalog.floored(bound, differing: groupDiffering), rank: rank, order: order)
                    continue
                }
                // The group's columns bound, computed when one of its blocks is first looked at (NaN: not yet).
                var groupBound = Double.nan
                for blockIndex in catalog.groupBlocks[Int(group.blocksStart)..<Int(group.blocksEnd)] {
                    let members = catalog.blocks[Int(blockIndex)]
                    let blockClassBound = catalog.bound(ofBlock: Int(blockIndex), for: probe)
                    guard closest.admits(
                        distance: NearMissCatalog.floored(blockClassBound, differing: groupDiffering), rank: rank,
                        position: members.firstPosition)
                    else { continue }
                    // The block's own shared fields, evaluated only for a block its url bound did not rule out.
                    let blockDiffering = max(groupDiffering, differing(members.fields, rank: rank))
                    guard blockDiffering == groupDiffering
                        || closest.admits(
                            distance: NearMissCatalog.floored(blockClassBound, differing: blockDiffering), rank: rank,
                            position: members.firstPosition)
                    else { continue }
                    sinceClock += 1
                    if sinceClock >= clockEvery || compared != comparedAtClock {
                        guard inTime() else { break groups }
                        sinceClock = 0
                        comparedAtClock = compared
                    }
                    guard affords(1) else { break groups }
                    if groupBound.isNaN {
                        groupBound = NearMissCatalog.floored(
                            catalog.columnsBound(group.columns, length: group.length, methodKey: group.methodKey, for: probe),
                            differing: groupDiffering)
                    }
                    // The group's bound holds for each of the block's mocks, none of which comes before
                    // the block's first position; nor does any mock of the group's later blocks.
                    guard closest.admits(distance: groupBound, rank: rank, position: members.firstPosition) else { continue groups }
                    let blockBound = max(
                        groupBound,
                        NearMissCatalog.floored(
                            catalog.columnsBound(members.columns, length: members.length, methodKey: members.methodKey, for: probe),
                            differing: blockDiffering))
                    guard closest.admits(distance: blockBound, rank: rank, position: members.firstPosition) else { continue }
                    for index in members.range where candidates.isEmpty || !candidates.contains(index) {
                        guard affords(1) else { break groups }
                        lookedAt += 1
                        let position = catalog.bounds[index].position
                        // Both the block's bound and the mock's own bound hold for it.
                        guard closest.admits(
                            distance: max(blockBound, NearMissCatalog.floored(catalog.bound(of: index, for: probe), differing: blockDiffering)),
                            rank: rank, position: position)
                        else { continue }
                        let edits = catalog.urlEdits(of: index, for: probe)
                        let urlBound = NearMissCatalog.floored(catalog.urlBound(of: index, edits: edits, for: probe), differing: blockDiffering)
                        if closest.admits(distance: urlBound, rank: rank, position: position) {
                            // Also before each further mock of the block compared field by field: one
                            // with thousands of header patterns takes a millisecond (try7b F8).
                            if compared != comparedAtClock {
                                guard inTime() else { break groups }
                                comparedAtClock = compared
                            }
                            compare(catalog, rank: rank, index: index, urlMatches: false, urlEdits: edits)
                        }
                    }
                }
            }
        }
        return finished()
    }

    /// The report of a ranking done: for a default-tenant request, the other tenants with a
    /// mock that matches it; the closest mocks compared again with their fields.
    private func report(
        closest: NearMissRanking, catalogs: [(catalog: NearMissCatalog, candidates: Set<Int>)], compared: Int, complete: Bool, tenant: TenantID, probe: NearMissProbe,
        headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant, regexpDeadline: ContinuousClock.Instant,
        slice: RegexpSlice
    ) -> NearMissReport {
        var complete = complete
        var matching: [TenantID] = []
        var searchedOtherTenants = true
        var otherTenantsPastLimit = false
        var otherTenantsOverAllowance = false
        var moreMatchingTenants = false
        if tenant.isDefault {
            let search = matchingTenantsSearch(
                method: probe.method, target: probe.target, headerValue: headerValue, body: body, until: deadline,
                regexpDeadline: regexpDeadline, slice: slice)
            matching = search.tenants
            searchedOtherTenants = search.searchedAll
            otherTenantsPastLimit = search.pastLimit
            otherTenantsOverAllowance = search.overAllowance
            moreMatchingTenants = search.more
            if search.cutShort { complete = false }
        }
        let nearMisses = closest.entries.map { entry in
            let mock = catalogs[entry.rank].catalog.mocks[entry.index]
            // The ranking's comparison, its fields added; a pattern with header or body patterns
            // is compared again for them, with the url's outcome and edit distance as found while
            // ranking (not evaluated again).
            let comparison = mock.definition.fieldsWithoutComparing(distance: entry.distance, probe, urlMatches: entry.urlMatches)
                ?? mock.definition.compare(
                    probe, headerValue: headerValue, body: body, urlMatches: entry.urlMatches, urlEdits: entry.urlEdits,
                    until: regexpDeadline, slice: slice, fields: true)
            if comparison.cutShort { complete = false }
            return NearMissReport.Closest(mock: mock, distance: (entry.distance * 1000).rounded() / 1000, comparison: comparison)
        }
        var report = NearMissReport(
            closest: nearMisses, matchingTenants: matching, compared: compared, complete: complete,
            searchedOtherTenants: searchedOtherTenants)
        report.otherTenantsPastLimit = otherTenantsPastLimit
        report.otherTenantsOverAllowance = otherTenantsOverAllowance
        report.moreMatchingTenants = moreMatchingTenants
        return report
    }
}

/// The closest mocks seen so far, at most `limit`, ordered by distance, then rank (the
/// request's own tenant 0, the default tenant 1), then position; each named by its index in
/// its rank's ``NearMissCatalog``.
struct NearMissRanking {
    struct Entry {
        let distance: Double
        let rank: Int
        let position: Int64
        let index: Int
        /// Whether the mock's url pattern matched, and the url's edit distance when known: what
        /// its comparison with fields reuses.
        let urlMatches: Bool
        let urlEdits: Int?

        /// Whether one at `distance`, `rank` and `position` comes before this entry.
        @inline(__always)
        func follows(distance: Double, rank: Int, position: Int64) -> Bool {
            (distance, rank, position) < (self.distance, self.rank, self.position)
        }
    }

    let limit: Int
    private(set) var entries: [Entry] = []

    init(limit: Int) {
        self.limit = limit
        entries.reserveCapacity(limit + 1)
    }

    /// Whether a mock at this distance, rank and position would enter the ranking.
    @inline(__always)
    func admits(distance: Double, rank: Int, position: Int64) -> Bool {
        guard entries.count == limit, let worst = entries.last else { return true }
        return worst.follows(distance: distance, rank: rank, position: position)
    }

    /// Whether some mock at this distance could enter the ranking (ties are decided by rank and
    /// position, so a distance equal to the last one's may).
    func admits(distance: Double) -> Bool {
        guard entries.count == limit, let worst = entries.last else { return true }
        return distance <= worst.distance
    }

    /// Enters a mock the ranking admits, in its place; the last entry drops out when the ranking
    /// is full. Put in last place (over the entry that drops out), then moved up past each entry
    /// it comes before: an `insert` and a `removeLast` went through the array's general
    /// `replaceSubrange` (about 560 instructions per 404, counted with callgrind).
    mutating func offer(distance: Double, rank: Int, position: Int64, index: Int, urlMatches: Bool, urlEdits: Int?) {
        guard admits(distance: distance, rank: rank, position: position) else { return }
        let entry = Entry(distance: distance, rank: rank, position: position, index: index, urlMatches: urlMatches, urlEdits: urlEdits)
        if entries.count == limit { entries[limit - 1] = entry } else { entries.append(entry) }
        var at = entries.count - 1
        while at > 0, entries[at - 1].follows(distance: distance, rank: rank, position: position) {
            entries.swapAt(at, at - 1)
            at -= 1
        }
    }
}
