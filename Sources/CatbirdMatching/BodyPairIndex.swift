/// Where each pair of adjacent bytes occurs in one request body, so that the body's many
/// `contains` patterns (one per mock) are each checked at the few places their rarest pair of
/// bytes occurs, not by a search of the whole body each (tester finding: 1,000 `contains` mocks
/// against a 60 KB body searched it 1,000 times, 60 MB, within a worker's slice and then again
/// on the matching lane). Built once per body by ``RequestBodyReading``, after a few searches.
///
/// Exact: a needle occurs in the body iff it occurs at one of its rarest pair's positions (less
/// its offset in the needle). A needle whose rarest pair occurs so often that checking every
/// place would read more bytes than the body holds is left to ``CatbirdSupport/ByteSearch``
/// (``contains(_:in:)`` answers nil), so a lookup never costs more than the search it replaces.
struct BodyPairIndex {
    /// The largest body indexed: 4 MiB (its positions take 4 bytes a byte of body).
    static let maximumBodyBytes = 4 << 20

    /// Pair `p` (first byte × 256 + second) occurs at ``positions``[`starts[p]..<starts[p + 1]`].
    private let starts: [UInt32]
    private let positions: [UInt32]

    /// The index of `body` (at most ``maximumBodyBytes``).
    init(_ body: UnsafeBufferPointer<UInt8>) {
        var starts = [UInt32](repeating: 0, count: 65_537)
        var positions = [UInt32](repeating: 0, count: max(body.count - 1, 0))
        if body.count >= 2 {
            for index in 0..<body.count - 1 { starts[Int(body[index]) << 8 | Int(body[index + 1]) + 1] += 1 }
            for pair in 1...65_536 { starts[pair] += starts[pair - 1] }
            var next = starts
            for index in 0..<body.count - 1 {
                let pair = Int(body[index]) << 8 | Int(body[index + 1])
                positions[Int(next[pair])] = UInt32(index)
                next[pair] += 1
            }
        }
        self.starts = starts
        self.positions = positions
    }

    /// Whether `needle` (at least 2 bytes) occurs in `body` (the bytes indexed), and the bytes
    /// read to tell; nil when its rarest pair occurs so often that checking each place would read
    /// more than the body's bytes (then search the body).
    func contains(_ needle: UnsafeBufferPointer<UInt8>, in body: UnsafeBufferPointer<UInt8>) -> (found: Bool, work: Int)? {
        guard needle.count >= 2, needle.count <= body.count else { return needle.count > body.count ? (false, 1) : nil }
        var rarest = 0
        var rarestCount = Int.max
        for offset in 0..<needle.count - 1 {
            let pair = Int(needle[offset]) << 8 | Int(needle[offset + 1])
            let count = Int(starts[pair + 1] - starts[pair])
            if count < rarestCount {
                (rarest, rarestCount) = (offset, count)
                if count == 0 { return (false, needle.count) }
            }
        }
        guard rarestCount * needle.count <= body.count else { return nil }
        let pair = Int(needle[rarest]) << 8 | Int(needle[rarest + 1])
        for place in positions[Int(starts[pair])..<Int(starts[pair + 1])] {
            let start = Int(place) - rarest
            guard start >= 0, start + needle.count <= body.count else { continue }
            if UnsafeBufferPointer(rebasing: body[start..<start + needle.count]).elementsEqual(needle) {
                return (true, needle.count * (rarestCount + 1))
            }
        }
        return (false, needle.count * (rarestCount + 1))
    }
}
