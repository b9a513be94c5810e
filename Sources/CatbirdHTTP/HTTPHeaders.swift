import CatbirdSupport

/// Header fields of a request or response, in the order received or added.
///
/// Names keep the case they arrived with; ``first(_:)`` and ``values(_:)`` compare names case-insensitively
/// (RFC 9110 §5.1). Repeated names stay separate entries.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields as `(name, value)` pairs.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates header fields from `(name, value)` pairs, keeping their order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Appends one field.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes the field added last, if any (a field line found malformed once the next was read).
    mutating func removeLast() {
        if !fields.isEmpty { fields.removeLast() }
    }

    /// Makes room for `count` fields in all, so that adding them one by one allocates once.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// The first value of the field called `name` (compared case-insensitively), or nil.
    public func first(_ name: String) -> String? {
        // By index, not `fields.first { … }`: asked several times per request, and the closure
        // form copies (retains and releases) every field it passes.
        for index in fields.indices where fields[index].name.equalsIgnoringASCIICase(name) { return fields[index].value }
        return nil
    }

    /// Every value of the fields called `name` (compared case-insensitively), in the order
    /// received; empty when there is none.
    public func values(_ name: String) -> [String] {
        var values: [String] = []
        for index in fields.indices where fields[index].name.equalsIgnoringASCIICase(name) { values.append(fields[index].value) }
        return values
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
