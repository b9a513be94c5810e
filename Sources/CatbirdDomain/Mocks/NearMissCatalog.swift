import CatbirdMatching

/// One tenant's mocks as the near-miss ranking reads them (docs/matching.md#near-misses), built
/// once per table version by the first unmatched request that needs it.
///
/// The mocks are grouped in blocks of ``blockSize`` alike ones (sorted by method, url length,
/// then url bytes), and kept in that order with each url's byte classes, length and method key
/// side by side in flat arrays. Each block keeps what bounds the distance of all its mocks at
/// once: the union of their byte classes, a common supersequence of their urls, their shortest
/// url, their method when they share one, and their lowest position (for ties).
///
/// For a mock whose url pattern does not match the request, the method and url fields alone
/// give a lower bound of its distance (``bound(of:for:)``, ``bound(ofBlock:for:)``,
/// ``sequenceBound(ofBlock:for:)``), so the ranking computes edit distances only for the mocks
/// (and blocks) whose bound could still place them among the closest.
///
/// A class: one catalog is shared by every unmatched request of its table version and passed
/// by reference (its arrays are not retained one by one each time a mock is looked at).
final class NearMissCatalog: Sendable {
    /// Mocks bounded together: 16.
    static let blockSize = 16

    /// A run of alike mocks and their common bound's parts (a class: looking a block up
    /// retains it instead of copying its fields).
    final class Block: Sendable {
        let range: Range<Int>
        /// The union of the mocks' url byte classes.
        let classes: ByteHistogram
        /// A text holding each mock's url (cut) as a subsequence; nil when that would be long.
        let supersequence: [UInt8]?
        /// The shortest url's length in bytes (cut to 128).
        let shortest: Int
        /// The mocks' method key when all have the same one, else 0 (unknown).
        let methodKey: UInt64
        /// The lowest position of the block's mocks.
        let firstPosition: Int64

        init(range: Range<Int>, classes: ByteHistogram, supersequence: [UInt8]?, shortest: Int, methodKey: UInt64, firstPosition: Int64) {
            self.range = range
            self.classes = classes
            self.supersequence = supersequence
            self.shortest = shortest
            self.methodKey = methodKey
            self.firstPosition = firstPosition
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
        var blocks: [Block] = []
        blocks.reserveCapacity((mocks.count + Self.blockSize - 1) / Self.blockSize)
        for start in stride(from: 0, to: mocks.count, by: Self.blockSize) {
            let range = start..<min(start + Self.blockSize, mocks.count)
            let key = methodKeys[start]
            blocks.append(Block(
                range: range, classes: histograms[range].reduce(.empty) { $0.union($1) },
                supersequence: CommonSupersequence.of(mocks[range].map(\.pattern.comparedURL)),
                shortest: lengths[range].min() ?? 0, methodKey: methodKeys[range].allSatisfy { $0 == key } ? key : 0,
                firstPosition: mocks[range].map(\.position).min() ?? 0))
        }
        self.mocks = mocks
        self.histograms = histograms
        positions = mocks.map(\.position)
        urls = mocks.flatMap(\.pattern.comparedURL)
        urlStarts = lengths.reduce(into: [0]) { $0.append($0.last! + $1) }
        self.lengths = lengths
        self.methodKeys = methodKeys
        self.blocks = blocks
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
        return probe.methodDistanceBound(block.methodKey) + probe.urlDistanceBound(classes: block.classes, shortest: block.shortest)
    }

    /// Another lower bound of the distance of every mock of block `index` whose url does not
    /// match, from the order of the bytes (the block's supersequence): dearer than
    /// ``bound(ofBlock:for:)``, often tighter.
    func sequenceBound(ofBlock index: Int, for probe: NearMissProbe) -> Double {
        let block = blocks[index]
        guard let supersequence = block.supersequence else { return 0 }
        return probe.methodDistanceBound(block.methodKey) + probe.urlDistanceBound(supersequence: supersequence, shortest: block.shortest)
    }
}
