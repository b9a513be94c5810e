/// A small, fast, seedable generator (SplitMix64, Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014): the same seed gives the same sequence on every run and
/// machine, so a generated test case that fails replays from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound` is 0 or less); one `next()` each.
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    /// One of `items`, which must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// True `percent` times in 100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
