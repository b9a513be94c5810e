/// One text (a request-target) prepared for Levenshtein distances to many others, over bytes.
///
/// Bit-parallel (Myers 1999, "A fast bit-vector algorithm for approximate string matching based
/// on dynamic programming", in Hyyrö's formulation for the distance between two whole texts):
/// the probe's bytes are bit positions in one machine word (two for 65–128 bytes), and each
/// byte of the other text costs a dozen word operations, whatever the probe's length. Texts
/// longer than ``CompiledRequestPattern/comparedURLLength`` bytes are compared by their first
/// that many bytes (docs/matching.md#near-misses).
public struct EditDistanceProbe: Sendable {
    /// The probe's bytes, cut.
    public let bytes: [UInt8]
    /// For each byte value, the positions of the probe holding it (one word per byte value
    /// when the probe fits 64 bits, else two: low word, high word).
    private let positions: [UInt64]

    /// Prepares `text`'s UTF-8 bytes, cut to `limit` (at most 128).
    public init(_ text: String, limit: Int) {
        precondition(limit <= 128, "EditDistanceProbe holds at most 128 bytes")
        bytes = Array(text.utf8.prefix(limit))
        let wide = bytes.count > 64
        var positions = [UInt64](repeating: 0, count: wide ? 512 : 256)
        for (index, byte) in bytes.enumerated() {
            if wide {
                positions[Int(byte) * 2 + index / 64] |= 1 << UInt64(index % 64)
            } else {
                positions[Int(byte)] |= 1 << UInt64(index)
            }
        }
        self.positions = positions
    }

    /// The Levenshtein distance (insertions, deletions, substitutions of single bytes) between
    /// the probe and `other` (the caller cuts `other` as the probe was cut).
    public func distance(to other: [UInt8]) -> Int {
        other.withUnsafeBufferPointer { distance(to: $0) }
    }

    /// The distance to bytes in place (see the array version).
    public func distance(to other: UnsafeBufferPointer<UInt8>) -> Int {
        positions.withUnsafeBufferPointer { positions in
            bytes.count > 64
                ? Self.wideDistance(length: bytes.count, to: other, positions: positions.baseAddress!)
                : Self.narrowDistance(length: bytes.count, to: other, positions: positions.baseAddress!)
        }
    }

    /// The length of the longest common subsequence of the probe and `other` (any length:
    /// `other` may be a supersequence of several texts, ``CommonSupersequence``), bit-parallel
    /// (Crochemore, Iliopoulos, Pinzon and Reid 2001): a zero bit per probe position matched.
    /// `max(|probe|, |u|) - lcs(probe, u)` is at most the edit distance of `u` and the probe
    /// (every byte of the longer text outside the matched pairs costs an edit), and the LCS
    /// with a supersequence of `u` is at least that with `u`.
    public func longestCommonSubsequence(with other: [UInt8]) -> Int {
        other.withUnsafeBufferPointer { longestCommonSubsequence(with: $0) }
    }

    /// The longest common subsequence with bytes in place (see the array version).
    public func longestCommonSubsequence(with other: UnsafeBufferPointer<UInt8>) -> Int {
        let length = bytes.count
        guard length > 64 else {
            // One word, written out (as narrowDistance: no call per byte).
            return positions.withUnsafeBufferPointer { positions in
                guard length > 0 else { return 0 }
                let table = positions.baseAddress!
                let mask: UInt64 = length == 64 ? ~0 : (1 << length) - 1
                var v: UInt64 = ~0
                for byte in other {
                    let equal = table[Int(byte)]
                    v = (v &+ (v & equal)) | (v & ~equal)
                }
                return length - (v & mask).nonzeroBitCount
            }
        }
        // Two words (65-128 bytes): the same recurrence on UInt128.
        return positions.withUnsafeBufferPointer { positions in
            let mask: UInt128 = length == 128 ? ~0 : (1 << length) - 1
            var v: UInt128 = ~0
            for byte in other {
                let equal = Self.wideWord(positions.baseAddress!, byte)
                v = (v &+ (v & equal)) | (v & ~equal)
            }
            return length - (v & mask).nonzeroBitCount
        }
    }

    /// A byte's positions in a probe of 65-128 bytes (two words per byte value: low, high).
    @inline(__always)
    private static func wideWord(_ positions: UnsafePointer<UInt64>, _ byte: UInt8) -> UInt128 {
        UInt128(positions[Int(byte) &* 2]) | UInt128(positions[Int(byte) &* 2 &+ 1]) << 64
    }

    /// The bit-vector recurrence: `vp`/`vn` hold the vertical differences (+1/-1) of the
    /// current column of the dynamic-programming matrix, one bit per probe position; `score`
    /// is its last cell. The top row grows by one per column (the carry-in of 1). `positions`
    /// is the probe's table (two words per byte value, ``wideWord(_:_:)``). For probes of
    /// 65-128 bytes; ``narrowDistance(length:to:positions:)`` is the same for one word.
    private static func wideDistance(length: Int, to other: UnsafeBufferPointer<UInt8>, positions: UnsafePointer<UInt64>) -> Int {
        guard length > 0 else { return other.count }
        let last: UInt128 = 1 << (length - 1)
        var vp: UInt128 = length == 128 ? ~0 : (1 << length) - 1
        var vn: UInt128 = 0
        var score = length
        for byte in other {
            let equal = wideWord(positions, byte)
            let xv = equal | vn
            let xh = (((equal & vp) &+ vp) ^ vp) | equal
            var hp = vn | ~(xh | vp)
            var hn = vp & xh
            if hp & last != 0 {
                score &+= 1
            } else if hn & last != 0 {
                score &-= 1
            }
            hp = (hp << 1) | 1
            hn <<= 1
            vp = hn | ~(xv | hp)
            vn = hp & xv
        }
        return score
    }

    /// ``wideDistance(length:to:positions:)`` for a probe of at most 64 bytes, written for
    /// `UInt64` (the generic version was measured not to be specialized across the call: every
    /// word operation became a call, several times the instructions per byte).
    private static func narrowDistance(length: Int, to other: UnsafeBufferPointer<UInt8>, positions: UnsafePointer<UInt64>) -> Int {
        guard length > 0 else { return other.count }
        // Masking shifts (`&<<`, `&>>`) throughout: every amount here is below 64, and the
        // plain operators would test each one for overshifting (a third of the work per byte).
        let lastBit = UInt64(length &- 1)
        var vp: UInt64 = length == 64 ? ~0 : (1 &<< UInt64(length)) &- 1
        var vn: UInt64 = 0
        var score = length
        for byte in other {
            let equal = positions[Int(byte)]
            let xv = equal | vn
            let xh = (((equal & vp) &+ vp) ^ vp) | equal
            let hp = vn | ~(xh | vp)
            let hn = vp & xh
            // hp and hn never share a bit: +1, -1 or 0, with no branch.
            score &+= Int(truncatingIfNeeded: (hp &>> lastBit) & 1) &- Int(truncatingIfNeeded: (hn &>> lastBit) & 1)
            let shiftedP = (hp &<< 1) | 1
            vp = (hn &<< 1) | ~(xv | shiftedP)
            vn = shiftedP & xv
        }
        return score
    }
}
