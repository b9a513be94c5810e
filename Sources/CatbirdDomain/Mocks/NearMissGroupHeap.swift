/// The near-miss ranking's groups of mocks (``NearMissCatalog/Group``) in the order it visits
/// them, lowest bound first (docs/matching.md#near-misses): a binary min-heap of packed keys in
/// a buffer the caller provides (a temporary allocation), so a request that stops after a few
/// groups orders only those instead of sorting all of them.
///
/// A key is 128 bits: the bound's bits (a bound is never negative, so its bits order as it
/// does), then the catalog's rank (0: the request's tenant, 1: the default tenant), then the
/// group's ``NearMissCatalog/Group/order`` (its place by lowest position): the ranking's own
/// tie order, so equal bounds come out earlier mock first. Between the bound and the rank, one
/// bit tells whether the bound counts the group's shared fields (``NearMissCatalog/floored(_:differing:)``):
/// a group is added with its method and url bound, and put back once with the fields counted
/// when it comes out first (``insert(bound:rank:order:)``), so only the groups the ranking
/// reaches have their fields evaluated.
struct NearMissGroupHeap {
    private let keys: UnsafeMutableBufferPointer<UInt128>
    private var count = 0

    /// An empty heap over `keys` (room for every group).
    init(_ keys: UnsafeMutableBufferPointer<UInt128>) {
        self.keys = keys
    }

    /// Adds a group whose bound does not count its shared fields, unordered until ``arrange()``.
    mutating func append(bound: Double, rank: Int, order: Int32) {
        keys[count] = Self.key(bound: bound, floored: false, rank: rank, order: order)
        count += 1
    }

    /// Puts back a group that came out of the heap with `bound`, which now counts its shared
    /// fields (room for it: it was taken out).
    mutating func insert(bound: Double, rank: Int, order: Int) {
        var child = count
        let key = Self.key(bound: bound, floored: true, rank: rank, order: Int32(order))
        count += 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard key < keys[parent] else { break }
            keys[child] = keys[parent]
            child = parent
        }
        keys[child] = key
    }

    private static func key(bound: Double, floored: Bool, rank: Int, order: Int32) -> UInt128 {
        precondition(bound >= 0 && rank < 2, "a near-miss bound is never negative; ranks are 0 and 1")
        return UInt128(bound.bitPattern) << 64
            | UInt128((floored ? 1 << 40 : 0) | UInt64(rank) << 32 | UInt64(UInt32(bitPattern: order)))
    }

    /// Orders the groups added (a heap in linear time), before the first ``popFirst()``.
    mutating func arrange() {
        var index = count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// The group of the lowest key, removed: its bound, whether that counts its shared fields,
    /// its catalog's rank and its order.
    mutating func popFirst() -> (bound: Double, floored: Bool, rank: Int, order: Int)? {
        guard count > 0 else { return nil }
        let first = keys[0]
        count -= 1
        if count > 0 {
            keys[0] = keys[count]
            siftDown(0)
        }
        let low = UInt64(truncatingIfNeeded: first)
        return (Double(bitPattern: UInt64(truncatingIfNeeded: first >> 64)), low >> 40 & 1 == 1, Int(low >> 32 & 1), Int(low & 0xFFFF_FFFF))
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
