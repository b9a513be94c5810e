/// The textbook Levenshtein distance over bytes (insertions, deletions and substitutions of
/// one byte each cost 1), row by row: the reference the near-miss tests check the server's
/// bit-parallel distance and its rankings against (docs/matching.md#near-misses).
public func referenceLevenshtein(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var previous = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
