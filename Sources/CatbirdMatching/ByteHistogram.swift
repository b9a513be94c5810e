/// How many bytes of a text fall into each of 64 classes: what the near-miss ranking uses to
/// bound an edit distance from below without computing it (docs/matching.md#near-misses).
///
/// The classes: `a`–`z` with `A`–`Z` (one class per letter), `0`–`9`, 27 punctuation bytes
/// common in URLs and patterns (`/-_.~?=&%+*^$[](){}\:,;|!@#`), and one class for every
/// other byte. For two texts `a` and `b`, `max(|a|, |b|) - common(a, b)` (the bag distance over these
/// classes) is at most their Levenshtein distance over bytes: each byte of the longer text that
/// the shorter one cannot pair with a byte of the same class costs at least one edit, and
/// merging bytes into classes only pairs more of them.
public struct ByteHistogram: Sendable, Equatable {
    /// Bytes per class; texts are cut to ``CompiledRequestPattern/comparedURLLength`` bytes
    /// before counting, so no count exceeds 128.
    public private(set) var counts: SIMD64<UInt8>

    /// The histogram of `bytes` (at most 255 of them fall into one class: callers cut texts first).
    public init(_ bytes: some Sequence<UInt8>) {
        var counts = SIMD64<UInt8>(repeating: 0)
        for byte in bytes { counts[Int(Self.classes[Int(byte)])] &+= 1 }
        self.counts = counts
    }

    private init(counts: SIMD64<UInt8>) {
        self.counts = counts
    }

    /// The empty histogram.
    public static let empty = ByteHistogram(counts: SIMD64<UInt8>(repeating: 0))

    /// How many bytes of the two texts pair up class by class: the sum over the classes of the
    /// smaller count. At most the shorter text's length (at most 128, so the byte-wide sum
    /// cannot wrap when one side is a cut text).
    @inline(__always)
    public func common(with other: ByteHistogram) -> Int {
        Int(pointwiseMin(counts, other.counts).wrappedSum())
    }

    /// The class-wise maximum of two histograms: `common(with:)` of the result bounds that of
    /// either one from above.
    public func union(_ other: ByteHistogram) -> ByteHistogram {
        ByteHistogram(counts: pointwiseMax(counts, other.counts))
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
