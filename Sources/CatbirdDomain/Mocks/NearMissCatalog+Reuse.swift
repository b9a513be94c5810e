import CatbirdMatching

/// The order of a near-miss catalog's mocks (method key, url length, url bytes, position, id),
/// found from an earlier catalog of the same table when there is one (tester finding try10b
/// F10: with 10,000 mocks, every change made the next 404 build the catalog anew, 0.4-0.5 s
/// on the matching lane): the mocks the earlier catalog holds unchanged (the same mock id and
/// the same ``Mock/Definition`` object) keep its order and its keys, read in place; only the
/// others are read from their patterns and sorted, then the two runs are merged. The order is
/// the one a sort of all the mocks gives: the key is a total order (ids are unique).
extension NearMissCatalog {
    /// One mock in the catalog's order, with what its bound reads.
    struct Ordered {
        let mock: Mock
        let methodKey: UInt64
        let classes: ByteHistogram
        let position: Int64
        /// Its index in the earlier catalog (``NearMissCatalog/Order/base``), or -1.
        let baseIndex: Int
        /// Where its url bytes are: in the earlier catalog's ``NearMissCatalog/urls`` when it
        /// has a `baseIndex`, else in ``NearMissCatalog/Order/addedURLs``.
        let urlStart: Int
        let urlLength: Int
    }

    /// The mocks in order, and the url bytes of those the earlier catalog did not hold.
    struct Order {
        let entries: [Ordered]
        let addedURLs: [UInt8]
        let base: NearMissCatalog?

        /// `entry`'s url bytes, in place (valid while `added` is `addedURLs`' storage).
        @inline(__always)
        func url(of entry: Ordered, added: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            let storage = entry.baseIndex >= 0 ? base!.urls : added
            return UnsafeBufferPointer(rebasing: storage[entry.urlStart..<entry.urlStart + entry.urlLength])
        }
    }

    /// Whether `a` comes before `b` in a catalog.
    @inline(__always)
    static func precedes(_ a: Ordered, _ b: Ordered, urlA: UnsafeBufferPointer<UInt8>, urlB: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.methodKey != b.methodKey { return a.methodKey < b.methodKey }
        if a.urlLength != b.urlLength { return a.urlLength < b.urlLength }
        if !urlA.elementsEqual(urlB) { return urlA.lexicographicallyPrecedes(urlB) }
        if a.position != b.position { return a.position < b.position }
        return a.mock.id < b.mock.id
    }

    /// `mocks` in a catalog's order, those `base` holds unchanged taken from it.
    static func order(_ mocks: [Mock], reusing base: NearMissCatalog?) -> Order {
        var taken = [Bool](repeating: false, count: mocks.count)
        var kept: [Ordered] = []
        if let base {
            var indexByID: [Int64: Int] = [:]
            indexByID.reserveCapacity(mocks.count)
            for (index, mock) in mocks.enumerated() { indexByID[mock.id] = index }
            kept.reserveCapacity(base.mocks.count)
            for (baseIndex, old) in base.mocks.enumerated() {
                guard let index = indexByID[old.id], mocks[index].definition === old.definition else { continue }
                taken[index] = true
                let bound = base.bounds[baseIndex]
                kept.append(Ordered(
                    mock: old, methodKey: bound.methodKey, classes: bound.classes, position: bound.position, baseIndex: baseIndex,
                    urlStart: Int(bound.urlStart), urlLength: Int(bound.length)))
            }
        }
        // The others' keys, read once each: reading `pattern` copies the compiled pattern (a
        // retain and a release of each of its parts), which the sort's comparisons did twice per
        // comparison.
        var addedURLs: [UInt8] = []
        var added: [Ordered] = []
        added.reserveCapacity(mocks.count - kept.count)
        for (index, mock) in mocks.enumerated() where !taken[index] {
            let pattern = mock.pattern
            added.append(Ordered(
                mock: mock, methodKey: pattern.methodKey, classes: pattern.urlHistogram, position: mock.position, baseIndex: -1,
                urlStart: addedURLs.count, urlLength: pattern.comparedURL.count))
            addedURLs += pattern.comparedURL
        }
        let entries = addedURLs.withUnsafeBufferPointer { addedBytes in
            let order = Order(entries: [], addedURLs: [], base: base)
            added.sort { precedes($0, $1, urlA: order.url(of: $0, added: addedBytes), urlB: order.url(of: $1, added: addedBytes)) }
            guard !kept.isEmpty else { return added }
            var merged: [Ordered] = []
            merged.reserveCapacity(kept.count + added.count)
            var (k, a) = (0, 0)
            while k < kept.count || a < added.count {
                let takeAdded = k == kept.count
                    || (a < added.count
                        && precedes(
                            added[a], kept[k], urlA: order.url(of: added[a], added: addedBytes),
                            urlB: order.url(of: kept[k], added: addedBytes)))
                if takeAdded {
                    merged.append(added[a])
                    a += 1
                } else {
                    merged.append(kept[k])
                    k += 1
                }
            }
            return merged
        }
        return Order(entries: entries, addedURLs: addedURLs, base: base)
    }
}

/// The parts of an earlier catalog a new one takes over: a block whose mocks are exactly one of
/// the earlier catalog's blocks keeps its byte classes, url columns and shared fields, and a
/// group all of whose blocks are so (and no more) keeps the group's too.
extension NearMissCatalog {
    /// A group's method key and url length: what makes a group.
    struct GroupKey: Hashable {
        let methodKey: UInt64
        let length: Int32
    }

    /// A group of this catalog and its blocks (indexes in ``blocks``, which holds each group's
    /// blocks one after the other, in the order they were cut).
    struct GroupBlocks {
        let group: Int
        let blocks: Range<Int>
    }

    /// Every group by its key (one pass over the blocks).
    var groupsByKey: [GroupKey: GroupBlocks] {
        var found: [GroupKey: GroupBlocks] = [:]
        var start = 0
        while start < blocks.count {
            let group = blocks[start].group
            var end = start + 1
            while end < blocks.count, blocks[end].group == group { end += 1 }
            let first = blocks[start]
            found[GroupKey(methodKey: first.methodKey, length: first.length)] = GroupBlocks(group: Int(group), blocks: start..<end)
            start = end
        }
        return found
    }

    /// Block `number` of `group` when its mocks are exactly `entries` (each the same mock at
    /// the same place, ``Ordered/baseIndex``), else nil.
    func sameBlock(_ group: GroupBlocks, _ number: Int, as entries: ArraySlice<Ordered>) -> Block? {
        guard number < group.blocks.count else { return nil }
        let block = blocks[group.blocks.lowerBound + number]
        guard Int(block.end - block.start) == entries.count else { return nil }
        var expected = Int(block.start)
        for entry in entries {
            guard entry.baseIndex == expected else { return nil }
            expected += 1
        }
        return block
    }

    /// The shared fields of a group's or block's `range`.
    func fields(_ range: FieldRange) -> [SharedField] {
        sharedFieldIndexes[range.range].map { sharedFields[Int($0)] }
    }
}
