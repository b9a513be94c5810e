/// A text holding each of several texts as a subsequence (a common supersequence), short when
/// they are alike: what one block of near-miss candidates is bounded by
/// (``EditDistanceProbe/longestCommonSubsequence(with:)``, docs/matching.md#near-misses).
public enum CommonSupersequence {
    /// The longest supersequence worth keeping: 256 bytes (longer ones bound too loosely to pay
    /// for their scan).
    public static let maximumLength = 256

    /// A common supersequence of `texts`, merged one text at a time by a shortest common
    /// supersequence of two (from their longest common subsequence); nil when it would exceed
    /// ``maximumLength``.
    public static func of(_ texts: [[UInt8]]) -> [UInt8]? {
        var merged: [UInt8] = []
        for text in texts {
            merged = shortest(merged, text)
            if merged.count > maximumLength { return nil }
        }
        return merged
    }

    /// A shortest common supersequence of `a` and `b`.
    static func shortest(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        if a.isEmpty { return b }
        if b.isEmpty || a == b { return a }
        // lcs[i][j]: the longest common subsequence of a[i...] and b[j...].
        let width = b.count + 1
        var lcs = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i * width + j] = a[i] == b[j] ? lcs[(i + 1) * width + j + 1] + 1 : max(lcs[(i + 1) * width + j], lcs[i * width + j + 1])
            }
        }
        var merged: [UInt8] = []
        merged.reserveCapacity(a.count + b.count - lcs[0])
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                merged.append(a[i]); i += 1; j += 1
            } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
                merged.append(a[i]); i += 1
            } else {
                merged.append(b[j]); j += 1
            }
        }
        merged += a[i...]
        merged += b[j...]
        return merged
    }
}
