import CatbirdMatching

/// One tenant's mocks as the near-miss ranking reads them (docs/matching.md#near-misses), built
/// once per table version by the first unmatched request that needs it.
///
/// The mocks are sorted by method, url length, then url bytes, and kept in that order with
/// each url's byte classes, length and method key side by side in flat arrays. Mocks with the
/// same method and url length form a group, cut into blocks of at most ``blockSize``. Each
/// group and each block keeps what bounds the distance of all its mocks at once: their urls'
/// bytes column by column (``ColumnClasses``), their lowest position (for ties), and for a
/// block the union of its urls' byte classes.
///
/// For a mock whose url pattern does not match the request, the method and url fields alone
/// give a lower bound of its distance (``bound(of:for:)``, ``bound(ofBlock:for:)``,
/// ``columnsBound(_:methodKey:for:)``), so the ranking computes edit distances only for the
/// mocks (and blocks, and groups) whose bound could still place them among the closest.
///
/// A class: one catalog is shared by every unmatched request of its table version and passed
/// by reference (its arrays are not retained one by one each time a mock is looked at).
final class NearMissCatalog: Sendable {
    /// Mocks bounded together at most: 16.
    static let blockSize = 16

    /// Mocks of one method and url length, bounded together: their urls' columns (nil when
    /// they hold many different bytes, or when the group is one block) and their lowest
    /// position (for ties). A class, as ``Block``.
    final class Group: Sendable {
        let columns: ColumnClasses?
        let methodKey: UInt64
        let firstPosition: Int64

        init(columns: ColumnClasses?, methodKey: UInt64, firstPosition: Int64) {
            self.columns = columns
            self.methodKey = methodKey
            self.firstPosition = firstPosition
        }
    }

    /// A run of at most ``blockSize`` mocks of one group and their common bound's parts (a
    /// class: looking a block up retains it instead of copying its fields).
    final class Block: Sendable {
        let range: Range<Int>
        /// The union of the mocks' url byte classes.
        let classes: ByteHistogram
        /// The mocks' urls (cut) column by column; nil when they hold many different bytes.
        let columns: ColumnClasses?
        /// The urls' length in bytes (cut to 128); the same for every mock of the block.
        let length: Int
        /// The mocks' method key (the same for every mock of the block; 0: unknown).
        let methodKey: UInt64
        /// The lowest position of the block's mocks.
        let firstPosition: Int64
        /// The block's group (index in ``NearMissCatalog/groups``).
        let group: Int

        init(
            range: Range<Int>, classes: ByteHistogram, columns: ColumnClasses?, length: Int, methodKey: UInt64, firstPosition: Int64,
            group: Int
        ) {
            self.range = range
            self.classes = classes
            self.columns = columns
            self.length = length
            self.methodKey = methodKey
            self.firstPosition = firstPosition
            self.group = group
        }
    }

    /// The tenant's mocks, block by block.
    let mocks: [Mock]
    let histograms: [ByteHistogram]
    let positions: [Int64]
    let lengths: [Int]
    let methodKeys: [UInt64]
    /// Every url's bytes (cut), one after the other; mock `i`'s start at `urlStarts[i]`.
    let urls: [UInt8]
    let urlStarts: [Int]
    let blocks: [Block]
    let groups: [Group]
    /// Mock id → index in ``mocks``.
    let indexByID: [Int64: Int]

    init(_ unordered: some Sequence<Mock>) {
        let mocks = unordered.sorted { a, b in
            let (left, right) = (a.pattern, b.pattern)
            if left.methodKey != right.methodKey { return left.methodKey < right.methodKey }
            if left.comparedURL.count != right.comparedURL.count { return left.comparedURL.count < right.comparedURL.count }
            if left.comparedURL != right.comparedURL { return left.comparedURL.lexicographicallyPrecedes(right.comparedURL) }
            return a.position < b.position
        }
        let histograms = mocks.map(\.pattern.urlHistogram)
        let lengths = mocks.map(\.pattern.comparedURL.count)
        let methodKeys = mocks.map(\.pattern.methodKey)
        let positions = mocks.map(\.position)
        var blocks: [Block] = []
        var groups: [Group] = []
        var groupStart = 0
        while groupStart < mocks.count {
            let (key, length) = (methodKeys[groupStart], lengths[groupStart])
            var groupEnd = groupStart + 1
            while groupEnd < mocks.count, methodKeys[groupEnd] == key, lengths[groupEnd] == length { groupEnd += 1 }
            let group = groupStart..<groupEnd
            for start in stride(from: groupStart, to: groupEnd, by: Self.blockSize) {
                let range = start..<min(start + Self.blockSize, groupEnd)
                blocks.append(Block(
                    range: range, classes: histograms[range].reduce(.empty) { $0.union($1) },
                    columns: ColumnClasses(mocks[range].lazy.map(\.pattern.comparedURL), maximumBytes: 4 * length + 32),
                    length: length, methodKey: key, firstPosition: positions[range].min()!, group: groups.count))
            }
            groups.append(Group(
                // A group of one block is bounded by the block's columns.
                columns: group.count > Self.blockSize
                    ? ColumnClasses(mocks[group].lazy.map(\.pattern.comparedURL), maximumBytes: 8 * length + 64) : nil,
                methodKey: key, firstPosition: positions[group].min()!))
            groupStart = groupEnd
        }
        self.mocks = mocks
        self.histograms = histograms
        self.positions = positions
        urls = mocks.flatMap(\.pattern.comparedURL)
        urlStarts = lengths.reduce(into: [0]) { $0.append($0.last! + $1) }
        self.lengths = lengths
        self.methodKeys = methodKeys
        self.blocks = blocks
        self.groups = groups
        indexByID = Dictionary(uniqueKeysWithValues: mocks.indices.map { (mocks[$0].id, $0) })
    }

    /// A lower bound of the distance (``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:until:fields:)``)
    /// between the probe and mock `index`, valid when its url pattern does not match the target.
    @inline(__always)
    func bound(of index: Int, for probe: NearMissProbe) -> Double {
        probe.methodDistanceBound(methodKeys[index]) + probe.urlDistanceBound(classes: histograms[index], shortest: lengths[index])
    }

    /// The edit distance between the probe's url and mock `index`'s (cut) url text, read in
    /// place (no mock copied).
    func urlEdits(of index: Int, for probe: NearMissProbe) -> Int {
        urls.withUnsafeBufferPointer { urls in
            probe.url.distance(to: UnsafeBufferPointer(rebasing: urls[urlStarts[index]..<urlStarts[index + 1]]))
        }
    }

    /// A lower bound of the distance of mock `index` (its url not matching) tighter than
    /// ``bound(of:for:)``: the method's bound plus the url's exact distance for `edits`
    /// (``urlEdits(of:for:)``), with no header or body evaluated.
    func urlBound(of index: Int, edits: Int, for probe: NearMissProbe) -> Double {
        probe.methodDistanceBound(methodKeys[index])
            + CompiledRequestPattern.urlDistance(edits: edits, longer: max(lengths[index], probe.url.bytes.count))
    }

    /// A lower bound of ``bound(of:for:)`` for every mock of block `index`, from byte classes.
    @inline(__always)
    func bound(ofBlock index: Int, for probe: NearMissProbe) -> Double {
        let block = blocks[index]
        return probe.methodDistanceBound(block.methodKey) + probe.urlDistanceBound(classes: block.classes, shortest: block.length)
    }

    /// Another lower bound of the distance of every mock whose url does not match, among mocks
    /// of one method key whose urls of one length were read column by column (a block's or a
    /// group's ``ColumnClasses``): the least edit distance to any text of those columns
    /// (``EditDistanceProbe/leastDistance(to:)``). Dearer than ``bound(ofBlock:for:)``, often
    /// much tighter; 0 without columns.
    func columnsBound(_ columns: ColumnClasses?, methodKey: UInt64, for probe: NearMissProbe) -> Double {
        guard let columns else { return 0 }
        return probe.methodDistanceBound(methodKey)
            + CompiledRequestPattern.urlDistance(
                edits: probe.url.leastDistance(to: columns), longer: max(columns.length, probe.url.bytes.count))
    }
}
