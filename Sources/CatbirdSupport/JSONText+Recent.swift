extension JSONText {
    /// ``object(_:)``, reused when `fields` equal (names and values, in order) fields the
    /// calling thread encoded recently with this method (one of the last
    /// ``RecentObjects/capacity``): a client sends the same header fields with every request
    /// on its connection (a test suite's session, a load generator), and a worker serves
    /// several such clients at once, interleaved (a shard per tenant, each with its own
    /// `X-Catbird-Parallel-Id`), so a worker mostly compares the fields instead of writing the
    /// text again. The request path's journaled request headers.
    public static func objectReusingRecent(_ fields: [(name: String, value: String)]) -> String {
        let fingerprint = RecentObjects.fingerprint(fields)
        return recentObjects.with { recent in
            if let text = recent.text(of: fields, fingerprint: fingerprint) { return text }
            let text = object(fields)
            recent.remember(fields, text: text, fingerprint: fingerprint)
            return text
        }
    }

    /// Each thread's recent ``objectReusingRecent(_:)`` answers.
    private static let recentObjects = PerThreadMemo { RecentObjects() }

    /// The last few field lists encoded and their texts, each with a fingerprint that tells
    /// most different lists apart without comparing their strings, so a list met for the first
    /// time costs a few integer comparisons more, not one comparison per entry.
    struct RecentObjects {
        /// Lists kept at most: 16, twice the tenants of the benchmark's interleaved scenario;
        /// a new list replaces the oldest.
        static let capacity = 16

        private var entries: [(fingerprint: UInt64, fields: [(name: String, value: String)], text: String)] = []
        private var oldest = 0

        /// The text of a remembered list equal to `fields`, or nil.
        func text(of fields: [(name: String, value: String)], fingerprint: UInt64) -> String? {
            for index in entries.indices where entries[index].fingerprint == fingerprint {
                // Byte for byte: two canonically equivalent values of one length and ending
                // (`D\u{323}\u{307}…` and `D\u{307}\u{323}…`) have one fingerprint, and `==`
                // would hand one the other's text (tester38a-F4's kind).
                if entries[index].fields.elementsEqual(fields, by: { $0.name.hasSameBytes(as: $1.name) && $0.value.hasSameBytes(as: $1.value) }) {
                    return entries[index].text
                }
            }
            return nil
        }

        mutating func remember(_ fields: [(name: String, value: String)], text: String, fingerprint: UInt64) {
            let entry = (fingerprint, fields, text)
            guard entries.count == Self.capacity else { return entries.append(entry) }
            entries[oldest] = entry
            oldest = (oldest + 1) % Self.capacity
        }

        /// Equal lists have equal fingerprints: the number of fields and, for each, the lengths
        /// of its name and value and its value's last up to 8 bytes (where values that differ
        /// from request to request mostly differ: a shard's number, a request id, a counter),
        /// mixed by multiplying (FNV-1a's prime).
        static func fingerprint(_ fields: [(name: String, value: String)]) -> UInt64 {
            var hash = 0xcbf2_9ce4_8422_2325 ^ UInt64(fields.count)
            for index in fields.indices {
                let value = fields[index].value.utf8
                hash = (hash ^ UInt64(fields[index].name.utf8.count) << 32 ^ UInt64(value.count)) &* 0x100_0000_01b3
                // In place (a native or small string is contiguous UTF-8): no copy, no scan.
                let tail = value.withContiguousStorageIfAvailable { bytes in
                    bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                }
                hash = (hash ^ (tail ?? 0)) &* 0x100_0000_01b3
            }
            return hash
        }
    }
}
