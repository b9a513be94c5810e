/// How many bytes of a text fall into each of 64 classes: what the near-miss ranking uses to
/// bound an edit distance from below without computing it (docs/matching.md#near-misses).
///
/// The classes: `a`–`z` with `A`–`Z` (one class per letter), `0`–`9`, 27 punctuation bytes
/// common in URLs and patterns (`/-_.~?=&%+*^$[](){}\:,;|!@#`), and one class for every
/// other byte. For two texts `a` and `b`, `max(|a|, |b|) - common(a, b)` (the bag distance over
/// these classes) is at most their Levenshtein distance over bytes: each byte of the longer
/// text that the shorter one cannot pair with a byte of the same class costs at least one
/// edit, and merging bytes into classes only pairs more of them.
///
/// Counts are bytes of 8 words, each at most 127 (a class holding all 128 bytes of a cut text
/// counts 127; ``NearMissProbe`` adds the byte this may lose back to ``common(with:)``), so that
/// the class-wise minimum is a few word operations (a borrow-free subtraction per byte).
public struct ByteHistogram: Sendable, Equatable {
    @usableFromInline let counts: SIMD8<UInt64>

    /// The histogram of `bytes`.
    public init(_ bytes: some Sequence<UInt8>) {
        // Counted in a buffer on the stack (every unmatched request makes one), then read as
        // 8 little-endian words: count `slot` is byte `slot % 8` of word `slot / 8`.
        counts = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { counts in
            counts.initialize(repeating: 0)
            Self.classes.withUnsafeBufferPointer { classes in
                for byte in bytes {
                    let slot = Int(classes[Int(byte)])
                    if counts[slot] < 127 { counts[slot] &+= 1 }
                }
            }
            let raw = UnsafeRawBufferPointer(counts)
            func word(_ index: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self)) }
            return SIMD8(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
        }
    }

    @usableFromInline init(counts: SIMD8<UInt64>) {
        self.counts = counts
    }

    /// The empty histogram.
    public static let empty = ByteHistogram(counts: SIMD8<UInt64>(repeating: 0))

    /// Every count's high bit (a constant the compiler folds; a stored `static let` would be
    /// read through a lazy-initialization check on every comparison).
    @inlinable static var high: SIMD8<UInt64> { SIMD8<UInt64>(repeating: 0x8080_8080_8080_8080) }

    /// The class-wise minimum or maximum (counts below 128: `(a | 0x80) - b` has its high bit
    /// set exactly where `a >= b`, and borrows nothing from the next byte).
    @inlinable @inline(__always)
    static func select(_ a: SIMD8<UInt64>, _ b: SIMD8<UInt64>, minimum: Bool) -> SIMD8<UInt64> {
        let atLeast = (((a | high) &- b) & high) &>> 7
        let mask = (atLeast &<< 8) &- atLeast
        return minimum ? (b & mask) | (a & ~mask) : (a & mask) | (b & ~mask)
    }

    /// How many bytes of the two texts pair up class by class: the sum over the classes of the
    /// smaller count (at most the shorter text's length, at most 128).
    @inlinable @inline(__always)
    public func common(with other: ByteHistogram) -> Int {
        let sum = Self.select(counts, other.counts, minimum: true).wrappedSum()
        return Int(truncatingIfNeeded: (sum &* 0x0101_0101_0101_0101) >> 56)
    }

    /// The class-wise maximum of two histograms: `common(with:)` of the result bounds that of
    /// either one from above.
    public func union(_ other: ByteHistogram) -> ByteHistogram {
        ByteHistogram(counts: Self.select(counts, other.counts, minimum: false))
    }

    /// Byte → class (0–63).
    private static let classes: [UInt8] = {
        var table = [UInt8](repeating: 63, count: 256)
        for (index, letter) in "abcdefghijklmnopqrstuvwxyz".utf8.enumerated() {
            table[Int(letter)] = UInt8(index)
            table[Int(letter - 32)] = UInt8(index)
        }
        for (index, digit) in "0123456789".utf8.enumerated() { table[Int(digit)] = UInt8(26 + index) }
        for (index, mark) in "/-_.~?=&%+*^$[](){}\\:,;|!@#".utf8.enumerated() { table[Int(mark)] = UInt8(36 + index) }
        return table
    }()
}
