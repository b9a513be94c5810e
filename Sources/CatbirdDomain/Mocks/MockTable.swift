import CatbirdMatching
import CatbirdWire

/// One tenant's mocks in match order, in memory: what decides which mock answers. Hits and
/// remaining limits change with every request and are kept beside it by ``TenantMocks``, so a
/// copy of this table (a snapshot to match on) stays valid until a mock is added or removed.
///
/// Mocks with an `equal` URL pattern are indexed by that URL, wildcard and regexp mocks by the
/// literal text their URL pattern requires (``PatternIndex``), so finding a match costs the
/// mocks that may match the requested URL, not the size of the whole table
/// (docs/matching.md#how-matching-scales). Among all candidates the one with the lowest position
/// wins (Catbird 0.11: first match in list order).
struct MockTable: Sendable {
    private(set) var byID: [Int64: Mock] = [:]
    /// `equal` URL → ids in ascending position.
    private var equalURLs: [String: [Int64]] = [:]
    /// Wildcard and regexp mocks, by the literal text their URL pattern requires.
    private var patterns = PatternIndex()
    /// Pattern identity (``RequestPattern/identity``) → id, for `update` and `remove`.
    private var byIdentity: [RequestPattern.Identity: Int64] = [:]
    /// The highest position ever inserted into this table, or 0. Raised by ``insert(_:)`` and
    /// never lowered: a mock removed or used up may still have its row in SQLite until the
    /// journal writer records the final hit, so its position is not handed out again.
    private(set) var highestPosition: Int64 = 0
    /// The bytes of the mocks' response bodies and patterns, all together (``Mock/heldBytes``):
    /// what ``TenantMockLimits/maxBytes`` bounds.
    private(set) var heldBytes = 0
    /// The bytes (``Mock/heldBytes``) of every mock removed from this table so far, all
    /// together: what a near-miss catalog kept since (``TenantMocks``' catalog base) still holds
    /// of mocks no longer here.
    private(set) var removedBytes = 0

    /// An empty table.
    init() {}

    /// A table of `mocks`, built once (start-up loads each tenant's stored mocks this way).
    init(_ mocks: some Sequence<Mock>) {
        for mock in mocks { insert(mock) }
    }

    /// How many mocks the table holds.
    var count: Int { byID.count }

    /// All mocks in match order, with the hits and limits they were inserted with
    /// (``TenantMocks`` keeps the current ones).
    var ordered: [Mock] { byID.values.sorted { $0.position < $1.position } }

    /// The ids of the mocks whose url pattern may match `target`: the equal-URL mocks for it
    /// and the pattern mocks the index names (a superset of those that match; near misses
    /// treat every other mock's url as differing).
    ///
    /// Every 404 asks it of its tenant's and the default tenant's table: when one side has
    /// none (the usual miss: no equal-URL mock for the target, or no pattern mock the index
    /// names), the other's list is the answer, without the concatenation's new array
    /// (callgrind: two allocations per 404 of a tenant with one equal-URL mock).
    func urlCandidates(for target: String) -> [Int64] {
        let equal = equalURLs.isEmpty ? [] : equalURLs[target] ?? []
        let patterned = patterns.candidates(for: target)
        if patterned.isEmpty { return equal }
        if equal.isEmpty { return patterned.map(\.id) }
        return equal + patterned.map(\.id)
    }

    /// Whether the table holds an equal-URL mock.
    var hasEqualURLs: Bool { !equalURLs.isEmpty }

    /// The ids of the equal-URL mocks whose url is `url` exactly (match order).
    func equalURLMocks(_ url: String) -> [Int64] {
        equalURLs.isEmpty ? [] : equalURLs[url] ?? []
    }

    /// The mock whose pattern has `identity` (``RequestPattern/Identity``: method, url kind and
    /// value, header patterns with names compared case-insensitively, a `json` body as JSON).
    func mock(identity: RequestPattern.Identity) -> Mock? {
        byIdentity[identity].flatMap { byID[$0] }
    }

    /// The first mock before `position` of the method and url pattern of `identity` without
    /// header or body patterns, and without a limit: it answers every request a mock with
    /// `identity` could match (tester finding T18A-F9, WireMock's "generic stub first" habit).
    /// Nil when `identity` itself has neither (then it is that mock's, replaced in place).
    func broader(than identity: RequestPattern.Identity, before position: Int64) -> Mock? {
        guard !identity.headers.isEmpty || identity.body != nil,
            let mock = self.mock(identity: identity.withoutHeadersOrBody),
            mock.position < position, mock.remainingLimit == nil
        else { return nil }
        return mock
    }

    /// The first mock before `position` of `mock`'s method and url pattern, without a body
    /// pattern and without a limit, whose only header pattern is a `Host` one every value
    /// matches (``isAnyHost(_:)``): every HTTP/1.1 request carries a `Host`, so it answers every
    /// request `mock` could match. The last step of docs/matching.md#sequences is such a mock:
    /// an earlier step added again once the sequence ran came behind it and was never served,
    /// unwarned (tester finding tester58b-F1). Nil when `mock` is that mock's identity.
    func anyHost(before mock: Mock) -> Mock? {
        let method = mock.patternMethod
        let url = mock.patternURL
        // An equal url's mocks from its index; another kind's by a look at every mock (once per
        // update of such a mock, which has no index by its pattern's text).
        let candidates: [Mock] = url.kind == .equal ? equalURLMocks(url.value).compactMap { byID[$0] } : Array(byID.values)
        return candidates.filter { earlier in
            earlier.position < mock.position && earlier.remainingLimit == nil && earlier.patternBody == nil
                && earlier.patternMethod == method && earlier.patternURL == url
                && Self.isAnyHost(earlier.pattern.source.headers) && earlier.identity != mock.identity
        }.min { $0.position < $1.position }
    }

    /// Whether `headers` is one `Host` pattern that every value matches: `wildcard` `*`, or a
    /// `regexp` of `""` or `.*` (the sequences' recipe, docs/matching.md#sequences).
    static func isAnyHost(_ headers: [String: PatternMatch]) -> Bool {
        guard headers.count == 1, let (name, pattern) = headers.first, name.lowercased() == "host" else { return false }
        switch pattern.kind {
        case .wildcard: return pattern.value == "*"
        case .regexp: return pattern.value == "" || pattern.value == ".*"
        default: return false
        }
    }

    /// The first mock before `position` of `method` whose `wildcard` or `regexp` url matches the
    /// `equal` url `url`, without header or body patterns and without a limit: it answers every
    /// request a mock of that method and url could match (tester finding tester50b-F5: a
    /// WireMock user's `/api/*` added before `/api/users`). Only the index's candidates for
    /// `url` are evaluated, each within ``CatbirdMatching/CompiledPatternMatch/defaultBudget``
    /// (one that outlasts it counts as not matching).
    func covering(url: String, method: String, before position: Int64) -> Mock? {
        let deadline = ContinuousClock.now.advanced(by: CompiledPatternMatch.defaultBudget)
        for entry in patterns.candidates(for: url) {
            guard entry.position < position else { return nil }
            guard let mock = byID[entry.id], mock.remainingLimit == nil, mock.patternMethod == method,
                  mock.patternURL.kind != .equal, mock.patternBody == nil, mock.pattern.source.headers.isEmpty else { continue }
            let outcome = mock.definition.evaluate(method: method, target: url, headerValue: { _ in nil }, body: [], until: deadline)
            if outcome == .matched { return mock }
        }
        return nil
    }

    /// The first mock before `position` that answers every usual request of `method`: its
    /// pattern a catch-all (``CatbirdMatching/RequestPattern/isCatchAll``), without a limit.
    /// Such a url pattern requires no literal text, so only the index's patterns tried for
    /// every url are looked at.
    func catchAll(method: String, before position: Int64) -> Mock? {
        for entry in patterns.alwaysTried {
            guard entry.position < position else { return nil }
            let mock = byID[entry.id]!
            if mock.remainingLimit == nil, mock.patternMethod == method, mock.pattern.source.isCatchAll { return mock }
        }
        return nil
    }

    mutating func insert(_ mock: Mock) {
        byID[mock.id] = mock
        byIdentity[mock.identity] = mock.id
        heldBytes += mock.heldBytes
        highestPosition = max(highestPosition, mock.position)
        if let url = mock.pattern.equalURL {
            // The slot is found first, then the list changed in place: finding it while the
            // list was open for writing (`insertSorted(mock, into: &equalURLs[url])`, a method
            // of `self` reading `byID`) made Swift copy `self`, and so copy this dictionary on
            // every insert (`_NativeDictionary.copy` under `insert` in gdb): quadratic, start-up
            // with 58,000 mocks took two minutes, and one update 52 ms in a 40,000-mock tenant.
            let slot = Self.slot(for: mock.position, in: equalURLs[url] ?? [], byID: byID)
            equalURLs[url, default: []].insert(mock.id, at: slot)
        } else {
            patterns.insert(
                PatternIndex.Entry(position: mock.position, id: mock.id), requirement: mock.pattern.urlRequirement)
        }
    }

    @discardableResult
    mutating func remove(id: Int64) -> Mock? {
        guard let mock = byID.removeValue(forKey: id) else { return nil }
        if byIdentity[mock.identity] == id { byIdentity[mock.identity] = nil }
        heldBytes -= mock.heldBytes
        removedBytes += mock.heldBytes
        if let url = mock.pattern.equalURL {
            equalURLs[url]?.removeAll { $0 == id }
            if equalURLs[url]?.isEmpty == true { equalURLs[url] = nil }
        } else {
            patterns.remove(id: id)
        }
        return mock
    }

    /// The id of the first mock in list order that matches: the equal-URL mocks for `target`
    /// merged by position with the pattern mocks the index names. A mock whose regular
    /// expression was stopped at `deadline` is passed to `outOfTime` and counts as not matching;
    /// with `slice` (the deadline is a worker's slice, ``CompiledPatternMatch/evaluate(_:until:slice:)``)
    /// the search ends there (nil: the answer is not known yet).
    ///
    /// With `fallback` (another tenant's request matched against the default tenant's mocks), a
    /// mock with an expression marked slow is charged to the default tenant, not to the request
    /// (docs/tenancy.md#slow-regular-expressions, tester finding try9b F7): on a worker it is
    /// not started; with the whole budget it runs at most ``RegexpSlice/length`` (so a search
    /// that finishes within it clears the mark); stopped, it is passed to `skipped` and counts
    /// as not matching, and the search goes on, within a slice too. Except its probes (review
    /// M1: a fixture marked slow by load alone must come back): a worker's search that marks
    /// it, or that claims its probe (one a second, ``CompiledRequestPattern/claimSlowProbe()``),
    /// stops as for the tenant's own expressions (`outOfTime`, nil: matched on the lane), and
    /// the lane's search that takes the probe gives it the whole budget.
    func firstMatch(
        method: String, target: String, headerValue: (String) -> String?, body: [UInt8], deadline: ContinuousClock.Instant,
        slice: RegexpSlice = .whole, fallback: Bool = false, outOfTime: (Mock) -> Void, skipped: (Mock) -> Void = { _ in }
    ) -> Int64? {
        let equal = equalURLs[target] ?? []
        let others = patterns.candidates(for: target)
        var e = 0
        var o = 0
        var meter = CandidateMeter()
        while e < equal.count || o < others.count {
            let takeEqual: Bool
            if e == equal.count {
                takeEqual = false
            } else if o == others.count {
                takeEqual = true
            } else {
                takeEqual = byID[equal[e]]!.position < others[o].position
            }
            let id = takeEqual ? equal[e] : others[o].id
            if takeEqual { e += 1 } else { o += 1 }
            let mock = byID[id]!
            // Through the shared definition: `mock.pattern` would copy the compiled pattern
            // (a retain and a release of each of its parts) on every request.
            let definition = mock.definition
            if slice == .matching || slice == .comparing, meter.spentSlice(adding: definition.matchingWeight) {
                outOfTime(mock)  // on a worker: the rest is matched on the lane
                return nil
            }
            // Marked before this search (one that this search marks is the tenant's own overrun).
            let wasMarked = fallback && definition.isMarkedSlow
            var until = deadline
            // Its own instant, never the request's deadline, which is counted in CPU time (``WholeBudget``).
            if wasMarked, !slice.isSlice, !definition.takeSlowProbe() { until = ContinuousClock.now.advanced(by: RegexpSlice.length) }
            switch definition.evaluate(method: method, target: target, headerValue: headerValue, body: body, until: until, slice: slice) {
            case .matched: return id
            case .notMatched: break
            case .outOfTime:
                if wasMarked, !(slice == .matching && definition.claimSlowProbe()) {
                    skipped(mock)
                    break
                }
                outOfTime(mock)
                if slice.isSlice { return nil }
            }
        }
        return nil
    }

    /// Where a mock at `position` goes in `ids` (ascending position): after every lower one.
    private static func slot(for position: Int64, in ids: [Int64], byID: [Int64: Mock]) -> Int {
        // Usually the end: a new mock takes the highest position.
        if let last = ids.last, byID[last]!.position < position { return ids.count }
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if byID[ids[middle]]!.position < position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
