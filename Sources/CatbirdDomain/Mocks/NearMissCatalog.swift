import CatbirdMatching

/// One tenant's mocks as the near-miss ranking reads them (docs/matching.md#near-misses), built
/// once per table version by the first unmatched request that needs it.
///
/// The mocks are sorted by method, url length, then url bytes. Mocks with the same method and
/// url length form a group, cut into blocks of at most ``blockSize``. Each group and each block
/// keeps what bounds the distance of all its mocks at once: their urls' bytes column by column
/// (``ColumnClasses``), and for a block its lowest position (for ties) and the union of its
/// urls' byte classes.
///
/// For a mock whose url pattern does not match the request, the method and url fields alone
/// give a lower bound of its distance (``bound(of:for:)``, ``bound(ofBlock:for:)``,
/// ``columnsBound(_:methodKey:for:)``), so the ranking computes edit distances only for the
/// mocks (and blocks, and groups) whose bound could still place them among the closest.
///
/// Each group and block also keeps the header and body fields all its mocks have
/// (``SharedField``, at most ``sharedFieldLimit``; each distinct one kept once in
/// ``sharedFields``): a request found to differ from such a field (a header it lacks, or a
/// pattern they all have that it does not match) is 0.5 farther from every one of those mocks
/// (``floored(_:differing:)``), which the ranking learns by evaluating that field once per
/// request (``NearMissFloors``), not once per mock (tester finding try8b F4: 100,000 mocks
/// that all had a header pattern the request lacked were each compared, 12-18 ms a miss).
///
/// Everything a bound reads (per mock, per block, per group, the urls' bytes and their columns)
/// is kept in flat buffers of plain values, allocated once here and read in place: looking at a
/// block or a mock retains and releases nothing (an unmatched request looks at dozens of blocks).
///
/// `@unchecked Sendable`: the buffers are written only in `init`, before the catalog is shared,
/// read only afterwards (never handed out mutable), and freed only in `deinit`, when no request
/// holds the catalog; so concurrent requests only ever read memory nobody writes.
final class NearMissCatalog: @unchecked Sendable {
    /// Mocks bounded together at most: 16.
    static let blockSize = 16
    /// Shared fields kept per group or block at most: 8 (of the first mock's first 8 header
    /// names, and its body pattern).
    static let sharedFieldLimit = 8

    /// Where a group's or block's shared fields are in ``sharedFieldIndexes``.
    struct FieldRange {
        let start: Int32
        let end: Int32

        var range: Range<Int> { Int(start)..<Int(end) }
    }

    /// What bounds one mock whose url does not match: its url's byte classes, length and bytes
    /// (where they start in ``urls``), its method key and its position.
    struct MockBound {
        let classes: ByteHistogram
        let methodKey: UInt64
        let position: Int64
        let urlStart: Int32
        let length: Int32
    }

    /// Where a ``ColumnClasses`` is in ``columnBytes`` and ``columnEnds``: its first byte and
    /// its first column's end (its length is the urls' length).
    struct Columns {
        let bytesStart: Int32
        let endsStart: Int32
    }

    /// Mocks of one method and url length, bounded together: the union of their urls' byte
    /// classes, their urls' columns (nil when they hold many different bytes, or when the
    /// group is one block), and their blocks.
    struct Group {
        let classes: ByteHistogram
        let columns: Columns?
        let length: Int32
        let methodKey: UInt64
        /// The group's blocks, lowest first position first: ``groupBlocks``[`blocksStart..<blocksEnd`].
        let blocksStart: Int32
        let blocksEnd: Int32
        /// The group's place among the catalog's groups ordered by their lowest position
        /// (``groupByOrder`` maps it back): the tie-break order, as one small number.
        let order: Int32
        /// The fields all the group's mocks have.
        let fields: FieldRange
    }

    /// A run of at most ``blockSize`` mocks of one group and their common bound's parts.
    struct Block {
        /// The union of the mocks' url byte classes.
        let classes: ByteHistogram
        /// The mocks' method key (the same for every mock of the block; 0: unknown).
        let methodKey: UInt64
        /// The lowest position of the block's mocks.
        let firstPosition: Int64
        /// The mocks (indexes in ``NearMissCatalog/mocks``): `start..<end`.
        let start: Int32
        let end: Int32
        /// The urls' length in bytes (cut to 128); the same for every mock of the block.
        let length: Int32
        /// The block's group (index in ``NearMissCatalog/groups``).
        let group: Int32
        /// The mocks' urls (cut) column by column; nil when they hold many different bytes.
        let columns: Columns?
        /// The fields all the block's mocks have.
        let fields: FieldRange

        var range: Range<Int> { Int(start)..<Int(end) }
    }

    /// The tenant's mocks, block by block.
    let mocks: [Mock]
    /// Mock id → index in ``mocks``.
    let indexByID: [Int64: Int]
    /// The `equal`-url mocks whose url has an ASCII capital, by that url lowered
    /// (``equalURLsByLowercase(_:)``; empty for most tables).
    let mixedCaseEqualURLs: [String: [Int]]
    /// Per mock (same indexes as ``mocks``).
    let bounds: UnsafeBufferPointer<MockBound>
    /// Every url's bytes (cut), one after the other (``MockBound/urlStart``).
    let urls: UnsafeBufferPointer<UInt8>
    let blocks: UnsafeBufferPointer<Block>
    let groups: UnsafeBufferPointer<Group>
    /// Each group's blocks (indexes in ``blocks``), group after group (``Group/blocksStart``).
    let groupBlocks: UnsafeBufferPointer<Int32>
    /// Group index by ``Group/order``.
    let groupByOrder: UnsafeBufferPointer<Int32>
    /// Every ``ColumnClasses`` kept, one after the other: their bytes, and their columns' ends
    /// (each an index in ``columnBytes``).
    let columnBytes: UnsafeBufferPointer<UInt8>
    let columnEnds: UnsafeBufferPointer<Int32>
    /// Every distinct field some group or block shares, once.
    let sharedFields: [SharedField]
    /// Each group's and block's shared fields (indexes in ``sharedFields``), one range after the other.
    let sharedFieldIndexes: UnsafeBufferPointer<Int32>
    /// How many of ``blocks`` were taken over from the earlier catalog the catalog was built
    /// from (``init(_:reusing:)``), with their classes, columns and fields (for tests).
    let blocksTakenOver: Int

    /// The catalog of `unordered` (a table's mocks, in any order). With `base`, an earlier
    /// catalog of the same table, what `base` worked out for the mocks it holds unchanged is
    /// taken from it rather than worked out again: their order and keys
    /// (``order(_:reusing:)``), and each block and group whose mocks are exactly those of one of
    /// `base`'s (its byte classes, url columns and shared fields); the catalog is the same as
    /// without `base` (tester finding try10b F10).
    init(_ unordered: some Sequence<Mock>, reusing base: NearMissCatalog? = nil) {
        let order = Self.order(Array(unordered), reusing: base)
        let entries = order.entries
        let mocks = entries.map(\.mock)
        var urls: [UInt8] = []
        var bounds: [MockBound] = []
        bounds.reserveCapacity(mocks.count)
        order.addedURLs.withUnsafeBufferPointer { added in
            for entry in entries {
                bounds.append(MockBound(
                    classes: entry.classes, methodKey: entry.methodKey, position: entry.position, urlStart: Int32(urls.count),
                    length: Int32(entry.urlLength)))
                urls += order.url(of: entry, added: added)
            }
        }
        var columnBytes: [UInt8] = []
        var columnEnds: [Int32] = []
        /// `columns` appended to the flat column storage, and where.
        func keep(_ columns: ColumnClasses?) -> Columns? {
            guard let columns else { return nil }
            let kept = Columns(bytesStart: Int32(columnBytes.count), endsStart: Int32(columnEnds.count))
            columnEnds += columns.ends.map { $0 + kept.bytesStart }
            columnBytes += columns.bytes
            return kept
        }
        /// `base`'s columns `columns` of `length` columns appended to the flat column storage, and where.
        func keep(_ columns: Columns?, length: Int32, of base: NearMissCatalog) -> Columns? {
            guard let columns else { return nil }
            let kept = Columns(bytesStart: Int32(columnBytes.count), endsStart: Int32(columnEnds.count))
            let ends = base.columnEnds[Int(columns.endsStart)..<Int(columns.endsStart) + Int(length)]
            columnEnds += ends.map { $0 - columns.bytesStart + kept.bytesStart }
            columnBytes += base.columnBytes[Int(columns.bytesStart)..<Int(ends.last ?? columns.bytesStart)]
            return kept
        }
        /// The columns of the urls of the mocks at `range` (all of one length), read in place in `urls`.
        func urlColumns(_ range: Range<Int>, maximumBytes: Int) -> ColumnClasses? {
            urls.withUnsafeBufferPointer { urls in
                ColumnClasses(
                    texts: bounds[range].map { Int($0.urlStart) }, length: Int(bounds[range.lowerBound].length), in: urls,
                    maximumBytes: maximumBytes)
            }
        }
        var sharedFields: [SharedField] = []
        var sharedFieldIndex: [SharedField.Key: Int32] = [:]
        var sharedFieldIndexes: [Int32] = []
        /// `fields` appended to the flat field storage (each distinct field kept once), and where.
        func keep(_ fields: [SharedField]) -> FieldRange {
            let start = Int32(sharedFieldIndexes.count)
            for field in fields {
                if let index = sharedFieldIndex[field.key] {
                    sharedFieldIndexes.append(index)
                } else {
                    let index = Int32(sharedFields.count)
                    sharedFields.append(field)
                    sharedFieldIndex[field.key] = index
                    sharedFieldIndexes.append(index)
                }
            }
            return FieldRange(start: start, end: Int32(sharedFieldIndexes.count))
        }
        var blocks: [Block] = []
        var groups: [Group] = []
        var groupBlocks: [Int32] = []
        var groupPositions: [Int64] = []
        let baseGroups = base?.groupsByKey ?? [:]
        var blocksTakenOver = 0
        var groupStart = 0
        while groupStart < mocks.count {
            let (key, length) = (bounds[groupStart].methodKey, bounds[groupStart].length)
            var groupEnd = groupStart + 1
            while groupEnd < mocks.count, bounds[groupEnd].methodKey == key, bounds[groupEnd].length == length { groupEnd += 1 }
            let group = groupStart..<groupEnd
            let firstBlock = blocks.count
            // `base`'s group of this method key and url length: its blocks, in `base.blocks`.
            let baseGroup = baseGroups[GroupKey(methodKey: key, length: length)]
            var reusedAll = baseGroup != nil
            var blockFields: [[SharedField]] = []
            for (number, start) in stride(from: groupStart, to: groupEnd, by: Self.blockSize).enumerated() {
                let range = start..<min(start + Self.blockSize, groupEnd)
                let firstPosition = bounds[range].lazy.map(\.position).min()!
                if let base, let baseGroup, let reused = base.sameBlock(baseGroup, number, as: entries[range]) {
                    let fields = base.fields(reused.fields)
                    blockFields.append(fields)
                    blocks.append(Block(
                        classes: reused.classes, methodKey: key, firstPosition: firstPosition, start: Int32(range.lowerBound),
                        end: Int32(range.upperBound), length: length, group: Int32(groups.count),
                        columns: keep(reused.columns, length: length, of: base), fields: keep(fields)))
                    blocksTakenOver += 1
                    continue
                }
                reusedAll = false
                let fields = CompiledRequestPattern.sharedFields(of: mocks[range].lazy.map(\.pattern), limit: Self.sharedFieldLimit)
                blockFields.append(fields)
                blocks.append(Block(
                    classes: bounds[range].reduce(.empty) { $0.union($1.classes) }, methodKey: key,
                    firstPosition: firstPosition, start: Int32(range.lowerBound),
                    end: Int32(range.upperBound), length: length, group: Int32(groups.count),
                    columns: keep(urlColumns(range, maximumBytes: 4 * Int(length) + 32)),
                    fields: keep(fields)))
            }
            // Lowest first position first: ties are decided by position, so the earlier mocks
            // are met first and the later ones skipped.
            let blocksStart = Int32(groupBlocks.count)
            groupBlocks += (firstBlock..<blocks.count).sorted { (blocks[$0].firstPosition, $0) < (blocks[$1].firstPosition, $1) }
                .map { Int32($0) }
            // The same mocks as `base`'s group (every block the same, and as many): its columns and fields too.
            let sameGroup = reusedAll && baseGroup?.blocks.count == blocks.count - firstBlock ? baseGroup : nil
            let columns: Columns?
            let fields: [SharedField]
            if let base, let sameGroup {
                let reused = base.groups[sameGroup.group]
                columns = keep(reused.columns, length: length, of: base)
                fields = base.fields(reused.fields)
            } else {
                // A group of one block is bounded by the block's columns.
                columns = group.count > Self.blockSize ? keep(urlColumns(group, maximumBytes: 8 * Int(length) + 64)) : nil
                fields = CompiledRequestPattern.sharedFields(among: blockFields)
            }
            groups.append(Group(
                classes: blocks[firstBlock...].reduce(.empty) { $0.union($1.classes) }, columns: columns,
                length: length, methodKey: key, blocksStart: blocksStart, blocksEnd: Int32(groupBlocks.count), order: 0,
                fields: keep(fields)))
            groupPositions.append(blocks[Int(groupBlocks[Int(blocksStart)])].firstPosition)
            groupStart = groupEnd
        }
        // Ties between groups of equal bound go to the lower position (then the earlier group).
        let byOrder = groups.indices.sorted { (groupPositions[$0], $0) < (groupPositions[$1], $1) }
        for (order, index) in byOrder.enumerated() {
            let group = groups[index]
            groups[index] = Group(
                classes: group.classes, columns: group.columns, length: group.length, methodKey: group.methodKey,
                blocksStart: group.blocksStart, blocksEnd: group.blocksEnd, order: Int32(order), fields: group.fields)
        }
        self.mocks = mocks
        indexByID = Dictionary(uniqueKeysWithValues: mocks.indices.map { (mocks[$0].id, $0) })
        mixedCaseEqualURLs = Self.equalURLsByLowercase(mocks)
        self.bounds = Self.kept(bounds)
        self.urls = Self.kept(urls)
        self.blocks = Self.kept(blocks)
        self.groups = Self.kept(groups)
        self.groupBlocks = Self.kept(groupBlocks)
        groupByOrder = Self.kept(byOrder.map { Int32($0) })
        self.columnBytes = Self.kept(columnBytes)
        self.columnEnds = Self.kept(columnEnds)
        self.sharedFields = sharedFields
        self.sharedFieldIndexes = Self.kept(sharedFieldIndexes)
        self.blocksTakenOver = blocksTakenOver
    }

    deinit {
        bounds.deallocate()
        urls.deallocate()
        blocks.deallocate()
        groups.deallocate()
        groupBlocks.deallocate()
        groupByOrder.deallocate()
        columnBytes.deallocate()
        columnEnds.deallocate()
        sharedFieldIndexes.deallocate()
    }

    /// A copy of `values` in memory of the catalog's own (plain values only: never deinitialized).
    private static func kept<Value>(_ values: [Value]) -> UnsafeBufferPointer<Value> {
        let buffer = UnsafeMutableBufferPointer<Value>.allocate(capacity: max(values.count, 1))
        _ = buffer.initialize(from: values)
        return UnsafeBufferPointer(start: buffer.baseAddress, count: values.count)
    }

    /// A lower bound of the distance (``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:until:fields:)``)
    /// between the probe and mock `index`, valid when its url pattern does not match the target.
    @inline(__always)
    func bound(of index: Int, for probe: NearMissProbe) -> Double {
        let mock = bounds[index]
        return probe.methodDistanceBound(mock.methodKey) + probe.urlDistanceBound(classes: mock.classes, shortest: Int(mock.length))
    }

    /// The edit distance between the probe's url and mock `index`'s (cut) url text, read in
    /// place (no mock copied).
    @inline(__always)
    func urlEdits(of index: Int, for probe: NearMissProbe) -> Int {
        let mock = bounds[index]
        return probe.url.distance(to: UnsafeBufferPointer(rebasing: urls[Int(mock.urlStart)..<Int(mock.urlStart) + Int(mock.length)]))
    }

    /// A lower bound of the distance of mock `index` (its url not matching) tighter than
    /// ``bound(of:for:)``: the method's bound plus the url's exact distance for `edits`
    /// (``urlEdits(of:for:)``), with no header or body evaluated.
    @inline(__always)
    func urlBound(of index: Int, edits: Int, for probe: NearMissProbe) -> Double {
        let mock = bounds[index]
        return probe.methodDistanceBound(mock.methodKey)
            + CompiledRequestPattern.urlDistance(edits: edits, longer: max(Int(mock.length), probe.url.bytes.count))
    }

    /// A lower bound of ``bound(of:for:)`` for every mock of block `index`, from byte classes.
    @inline(__always)
    func bound(ofBlock index: Int, for probe: NearMissProbe) -> Double {
        let block = blocks[index]
        return probe.methodDistanceBound(block.methodKey) + probe.urlDistanceBound(classes: block.classes, shortest: Int(block.length))
    }

    /// A lower bound of ``bound(ofBlock:for:)`` for every block of group `index`, from byte classes.
    @inline(__always)
    func bound(ofGroup index: Int, for probe: NearMissProbe) -> Double {
        let group = groups[index]
        return probe.methodDistanceBound(group.methodKey) + probe.urlDistanceBound(classes: group.classes, shortest: Int(group.length))
    }

    /// Another lower bound of the distance of every mock whose url does not match, among mocks
    /// of one method key whose urls of one length (`length`) were read column by column (a
    /// block's or a group's ``Columns``): the least edit distance to any text of those columns
    /// (``EditDistanceProbe/leastDistance(columnBytes:from:ends:)``). Dearer than
    /// ``bound(ofBlock:for:)``, often much tighter; 0 without columns.
    func columnsBound(_ columns: Columns?, length: Int32, methodKey: UInt64, for probe: NearMissProbe) -> Double {
        guard let columns else { return 0 }
        let ends = UnsafeBufferPointer(rebasing: columnEnds[Int(columns.endsStart)..<Int(columns.endsStart) + Int(length)])
        return probe.methodDistanceBound(methodKey)
            + CompiledRequestPattern.urlDistance(
                edits: probe.url.leastDistance(columnBytes: columnBytes, from: Int(columns.bytesStart), ends: ends),
                longer: max(Int(length), probe.url.bytes.count))
    }
}

extension NearMissCatalog {
    /// `bound` (a lower bound from the method and url fields) plus 0.5 for each of `differing`
    /// shared fields the request differs from: still a lower bound of the distance of every
    /// mock that has those fields. The halves are added one at a time, as
    /// ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``
    /// adds each differing field's after the url's, so the bound's rounding never puts it above
    /// a distance it bounds.
    @inline(__always)
    static func floored(_ bound: Double, differing: Int) -> Double {
        var floored = bound
        for _ in 0..<differing { floored += 0.5 }
        return floored
    }
}
