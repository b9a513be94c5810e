/// The near-miss ranking's groups of mocks (``NearMissCatalog/Group``) in the order it visits
/// them, lowest bound first (docs/matching.md#near-misses): a binary min-heap of packed keys in
/// a buffer the caller provides (a temporary allocation), so a request that stops after a few
/// groups orders only those instead of sorting all of them.
///
/// A key is 128 bits: the bound's bits (a bound is never negative, so its bits order as it
/// does), then the catalog's rank (0: the request's tenant, 1: the default tenant), then the
/// group's ``NearMissCatalog/Group/order`` (its place by lowest position): the ranking's own
/// tie order, so equal bounds come out earlier mock first.
struct NearMissGroupHeap {
    private let keys: UnsafeMutableBufferPointer<UInt128>
    private var count = 0

    /// An empty heap over `keys` (room for every group).
    init(_ keys: UnsafeMutableBufferPointer<UInt128>) {
        self.keys = keys
    }

    /// Adds a group, unordered until ``arrange()``.
    mutating func append(bound: Double, rank: Int, order: Int32) {
        precondition(bound >= 0 && rank < 2, "a near-miss bound is never negative; ranks are 0 and 1")
        keys[count] = UInt128(bound.bitPattern) << 64 | UInt128(UInt64(rank) << 32 | UInt64(UInt32(bitPattern: order)))
        count += 1
    }

    /// Orders the groups added (a heap in linear time), before the first ``popFirst()``.
    mutating func arrange() {
        var index = count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The group of the lowest key, removed: its bound, its catalog's rank and its order.
    mutating func popFirst() -> (bound: Double, rank: Int, order: Int)? {
        guard count > 0 else { return nil }
        let first = keys[0]
        count -= 1
        if count > 0 {
            keys[0] = keys[count]
            siftDown(0)
        }
        let low = UInt64(truncatingIfNeeded: first)
        return (Double(bitPattern: UInt64(truncatingIfNeeded: first >> 64)), Int(low >> 32), Int(low & 0xFFFF_FFFF))
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let key = keys[parent]
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, keys[child + 1] < keys[child] { child += 1 }
            guard keys[child] < key else { break }
            keys[parent] = keys[child]
            parent = child
        }
        keys[parent] = key
    }
}
