/// Texts of one length read position by position: for each byte position (column), the
/// distinct bytes the texts hold there. The edit distance between a probe and this "text of
/// byte classes" (a column matches a probe byte that is one of its bytes) is at most the edit
/// distance between the probe and any of the texts, so one bit-parallel pass
/// (``EditDistanceProbe/leastDistance(to:)``) bounds a whole group of near-miss candidates
/// (docs/matching.md#near-misses). When the texts differ only in bytes the probe does not hold,
/// the bound is their exact distance.
public struct ColumnClasses: Sendable {
    /// Column 0's distinct bytes, then column 1's, and so on.
    public let bytes: [UInt8]
    /// Where each column's bytes end in ``bytes`` (column `j` is `ends[j - 1]..<ends[j]`).
    public let ends: [Int32]

    /// The columns of `texts`; nil when they are not all of one length, or when the columns
    /// would hold more than `maximumBytes` bytes together (a bound that costs more than the
    /// distances it would save).
    public init?(_ texts: some Collection<[UInt8]>, maximumBytes: Int) {
        guard let length = texts.first?.count, texts.allSatisfy({ $0.count == length }) else { return nil }
        let storage = Array(texts.joined())
        guard let columns = storage.withUnsafeBufferPointer({ storage in
            ColumnClasses(texts: (0..<texts.count).map { $0 * length }, length: length, in: storage, maximumBytes: maximumBytes)
        }) else { return nil }
        self = columns
    }

    /// The columns of the texts of `length` bytes that start at `starts` in `storage` (each
    /// `storage[start..<start + length]`): the same as ``init(_:maximumBytes:)`` of those texts,
    /// read in place. A near-miss catalog reads its urls so when it is built (tester finding
    /// try10b F10: through a lazy map of its mocks, copying each mock and its compiled pattern
    /// once per column, the columns were four fifths of the 0.4-0.5 s a 10,000-mock table's
    /// catalog took to build after each change). `starts` is an array, not any collection: a
    /// generic one is not specialized across modules, and its iterator's metadata lookups were
    /// most of the time.
    public init?(texts starts: [Int], length: Int, in storage: UnsafeBufferPointer<UInt8>, maximumBytes: Int) {
        guard !starts.isEmpty else { return nil }
        var bytes: [UInt8] = []
        var ends: [Int32] = []
        ends.reserveCapacity(length)
        for column in 0..<length {
            var seen = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
            for start in starts {
                let byte = storage[start + column]
                let bit = UInt64(1) << UInt64(byte & 63)
                let isNew: Bool
                switch byte >> 6 {
                case 0: isNew = seen.0 & bit == 0; seen.0 |= bit
                case 1: isNew = seen.1 & bit == 0; seen.1 |= bit
                case 2: isNew = seen.2 & bit == 0; seen.2 |= bit
                default: isNew = seen.3 & bit == 0; seen.3 |= bit
                }
                if isNew { bytes.append(byte) }
            }
            guard bytes.count <= maximumBytes else { return nil }
            ends.append(Int32(bytes.count))
        }
        self.bytes = bytes
        self.ends = ends
    }

    /// The texts' length in bytes.
    public var length: Int { ends.count }
}
