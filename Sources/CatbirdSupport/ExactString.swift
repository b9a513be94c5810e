/// A string compared and hashed by its Unicode scalars (its UTF-8 bytes), not by Swift's
/// canonical equivalence: `"é"` (U+00E9) and `"e\u0301"` differ (RFC 8259 §8.3;
/// docs/matching.md#body-matchers, docs/matching.md#update-replaces-in-place;
/// a `json` pattern's value naming two such keys names two keys, ``JSONTextCheck``).
public struct ExactString: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The string as read.
    public let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral value: String) { self.text = value }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.text.hasSameBytes(as: rhs.text)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(text.utf8.count)
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
    }

    /// An order for showing: `String`'s `<`, and for two strings it calls neither smaller
    /// (canonically equivalent), their UTF-8 bytes.
    public func precedes(_ other: ExactString) -> Bool {
        if text < other.text { return true }
        if other.text < text { return false }
        return text.utf8.lexicographicallyPrecedes(other.text.utf8)
    }
}
