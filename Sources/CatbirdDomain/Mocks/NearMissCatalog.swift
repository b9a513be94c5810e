import CatbirdMatching

/// One tenant's mocks as the near-miss ranking reads them (docs/matching.md#near-misses), built
/// once per table version: in match order, with each url's byte classes, length and method key
/// side by side in flat arrays, and, per block of ``blockSize`` consecutive mocks, what bounds
/// the distance of all of them at once: the union of their byte classes, their shortest url and
/// their method when they share one.
///
/// For a mock whose url pattern does not match the request, the method and url fields alone
/// give a lower bound of its distance (``bound(of:for:)``, ``bound(ofBlock:for:)``), so the
/// ranking computes edit distances only for mocks (and blocks) whose bound could still place
/// them among the closest.
struct NearMissCatalog: Sendable {
    /// Consecutive mocks bounded together: 16.
    static let blockSize = 16

    /// A run of consecutive mocks and their common bound's parts.
    struct Block: Sendable {
        let range: Range<Int>
        /// The union of the mocks' url byte classes.
        let classes: ByteHistogram
        /// The shortest url's length in bytes (cut to 128).
        let shortest: Int
        /// The mocks' method key when all have the same one, else 0 (unknown).
        let methodKey: UInt64
    }

    /// The tenant's mocks in match order.
    let mocks: [Mock]
    let histograms: [ByteHistogram]
    let lengths: [Int]
    let methodKeys: [UInt64]
    let blocks: [Block]
    /// Mock id → index in ``mocks``.
    let indexByID: [Int64: Int]

    init(_ unordered: some Sequence<Mock>) {
        let mocks = unordered.sorted { $0.position < $1.position }
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
                shortest: lengths[range].min() ?? 0, methodKey: methodKeys[range].allSatisfy { $0 == key } ? key : 0))
        }
        self.mocks = mocks
        self.histograms = histograms
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

    /// A lower bound of ``bound(of:for:)`` for every mock of block `index`.
    @inline(__always)
    func bound(ofBlock index: Int, for probe: NearMissProbe) -> Double {
        let block = blocks[index]
        return probe.methodDistanceBound(block.methodKey) + probe.urlDistanceBound(classes: block.classes, shortest: block.shortest)
    }
}
