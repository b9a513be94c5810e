import CatbirdSupport

/// Wildcard and regexp url patterns indexed by the literal text they require
/// (``LiteralRequirement``), so that a request-target is tried only against the patterns that can
/// match it (docs/matching.md#how-matching-scales).
///
/// Each pattern goes into one bucket:
/// - its required prefix, when it has one of at least 4 bytes, or any prefix and no infix of 3:
///   found by hashing the target's first n bytes for each prefix length n in use;
/// - else its required infix of at least 3 bytes, by one of its 3-byte grams: found by looking
///   up every 3-byte window of the target;
/// - else the patterns tried for every target.
///
/// ``candidates(for:)`` returns a superset of the patterns that match (a hash collision only adds
/// candidates), in ascending position. For a target that is not ASCII it returns every pattern:
/// case-insensitive ICU matching folds non-ASCII text onto ASCII (`ſ` matches `s`).
public struct PatternIndex: Sendable {
    /// A pattern's place: `position` orders candidates (lowest first), `id` names it.
    public struct Entry: Sendable, Hashable, Comparable {
        public let position: Int64
        public let id: Int64

        public init(position: Int64, id: Int64) {
            self.position = position
            self.id = id
        }

        public static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.position < rhs.position }
    }

    private enum Bucket: Hashable {
        case prefix(UInt64)
        case gram(UInt32)
        case always
    }

    /// Every pattern, ascending position.
    public private(set) var all: [Entry] = []
    private var always: [Entry] = []
    private var prefixes: [UInt64: [Entry]] = [:]
    private var grams: [UInt32: [Entry]] = [:]
    /// Prefix length → how many patterns use it (the lengths to hash a target at).
    private var prefixLengths: [Int: Int] = [:]
    private var sortedPrefixLengths: [Int] = []
    private var buckets: [Int64: (Bucket, Int)] = [:]

    public init() {}

    /// The patterns tried for every subject (no literal text required of it: `*`, `.*`,
    /// `\d+`…), ascending position.
    public var alwaysTried: [Entry] { always }

    /// Whether no pattern is indexed.
    public var isEmpty: Bool { all.isEmpty }

    /// Adds a pattern. `requirement` must be what the pattern needs of every subject it matches.
    public mutating func insert(_ entry: Entry, requirement: LiteralRequirement) {
        Self.insertSorted(entry, into: &all)
        let prefix = requirement.prefix
        let infix = requirement.infix
        if prefix.count >= 4 || (!prefix.isEmpty && infix.count < 3) {
            let key = Self.prefixKey(prefix)
            Self.insertSorted(entry, into: &prefixes[key, default: []])
            prefixLengths[prefix.count, default: 0] += 1
            if prefixLengths[prefix.count] == 1 { sortedPrefixLengths = prefixLengths.keys.sorted() }
            buckets[entry.id] = (.prefix(key), prefix.count)
        } else if infix.count >= 3 {
            let key = Self.bestGram(infix)
            Self.insertSorted(entry, into: &grams[key, default: []])
            buckets[entry.id] = (.gram(key), 0)
        } else {
            Self.insertSorted(entry, into: &always)
            buckets[entry.id] = (.always, 0)
        }
    }

    /// Removes the pattern with this id (nothing when there is none).
    public mutating func remove(id: Int64) {
        guard let (bucket, length) = buckets.removeValue(forKey: id) else { return }
        all.removeAll { $0.id == id }
        switch bucket {
        case let .prefix(key):
            prefixes[key]?.removeAll { $0.id == id }
            if prefixes[key]?.isEmpty == true { prefixes[key] = nil }
            prefixLengths[length, default: 1] -= 1
            if prefixLengths[length] == 0 {
                prefixLengths[length] = nil
                sortedPrefixLengths = prefixLengths.keys.sorted()
            }
        case let .gram(key):
            grams[key]?.removeAll { $0.id == id }
            if grams[key]?.isEmpty == true { grams[key] = nil }
        case .always:
            always.removeAll { $0.id == id }
        }
    }

    /// The patterns that may match `target`, ascending position, each once.
    public func candidates(for target: String) -> [Entry] {
        if all.isEmpty { return [] }
        var target = target
        return target.withUTF8 { bytes -> [Entry] in
            if bytes.contains(where: { $0 >= 0x80 }) { return all }
            // Each bucket's list is sorted and holds a pattern once: one list found (the usual
            // case) is the answer as it is, shared, not copied; more are merged below.
            var found = always
            var lists = always.isEmpty ? 0 : 1
            func add(_ entries: [Entry]) {
                if found.isEmpty { found = entries } else { found += entries }
                lists += 1
            }
            if !sortedPrefixLengths.isEmpty {
                var hash = Self.hashSeed
                var length = 0
                for wanted in sortedPrefixLengths {
                    guard wanted <= bytes.count else { break }
                    while length < wanted {
                        hash = Self.hash(hash, ASCIICase.lower(bytes[length]))
                        length += 1
                    }
                    if let entries = prefixes[Self.finish(hash, length: length)] { add(entries) }
                }
            }
            if !grams.isEmpty, bytes.count >= 3 {
                var gram: UInt32 = (UInt32(ASCIICase.lower(bytes[0])) << 8) | UInt32(ASCIICase.lower(bytes[1]))
                for i in 2..<bytes.count {
                    gram = ((gram << 8) | UInt32(ASCIICase.lower(bytes[i]))) & 0xFF_FFFF
                    if let entries = grams[gram] { add(entries) }
                }
            }
            if lists > 1 {
                found.sort()
                var unique: [Entry] = []
                unique.reserveCapacity(found.count)
                for entry in found where unique.last != entry { unique.append(entry) }
                return unique
            }
            return found
        }
    }

    // MARK: keys

    private static let hashSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    /// FNV-1a, one byte.
    private static func hash(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    private static func finish(_ hash: UInt64, length: Int) -> UInt64 {
        hash ^ (UInt64(length) &* 0x9E37_79B9_7F4A_7C15)
    }

    private static func prefixKey(_ prefix: [UInt8]) -> UInt64 {
        finish(prefix.reduce(hashSeed) { hash($0, $1) }, length: prefix.count)
    }

    /// The 3-byte gram of `infix` most likely to be rare: the most letters and digits, the last
    /// such one (URLs share their leading segments more than their ends). Counted in place: an
    /// array made at each position was a third of start-up's work for multi-megabyte stored
    /// expressions (try9b F14, whose literal runs are infixes of megabytes).
    private static func bestGram(_ infix: [UInt8]) -> UInt32 {
        var best: UInt32 = 0
        var bestScore = -1
        for i in 0...(infix.count - 3) {
            var score = 0
            for byte in infix[i..<(i + 3)] where ASCIICase.isAlphanumeric(Unicode.Scalar(byte)) { score += 1 }
            if score >= bestScore {
                bestScore = score
                best = (UInt32(infix[i]) << 16) | (UInt32(infix[i + 1]) << 8) | UInt32(infix[i + 2])
            }
        }
        return best
    }

    private static func insertSorted(_ entry: Entry, into entries: inout [Entry]) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].position < entry.position { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
    }
}
