import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// A url or header pattern as `update` and `remove` compare it
    /// (docs/matching.md#update-replaces-in-place): the kind, and the value as that kind's
    /// matching reads it. `equal` matches by Swift's `==`, Unicode canonical equivalence, as in
    /// Catbird 0.11 (docs/matching.md#pattern-kinds), so its values are compared so too: `/café`
    /// in NFC and in NFD are one pattern. `regexp` and `wildcard` are ICU expressions, which match
    /// `é` and `e\u0301` differently (`^/ré$` does not find `/re\u0301`), so their values are
    /// compared exactly, Unicode scalar by scalar (``ExactString``): otherwise an `update` of one
    /// replaced the other, and the requests only the first matched got 404 (tester21a-F6).
    public struct PatternIdentity: Hashable, Sendable {
        /// The pattern as given.
        public let pattern: PatternMatch

        public init(_ pattern: PatternMatch) {
            self.pattern = pattern
        }

        /// Whether the kind's matching compares the value by canonical equivalence.
        private var canonical: Bool { pattern.kind == .equal }

        public static func == (lhs: PatternIdentity, rhs: PatternIdentity) -> Bool {
            guard lhs.pattern.kind == rhs.pattern.kind else { return false }
            return lhs.canonical
                ? lhs.pattern.value == rhs.pattern.value : ExactString(lhs.pattern.value) == ExactString(rhs.pattern.value)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(pattern.kind)
            if canonical { hasher.combine(pattern.value) } else { hasher.combine(ExactString(pattern.value)) }
        }

        /// A fixed order for the patterns under one header name: by kind, then value (`String`'s
        /// `<`, then UTF-8 bytes for values it calls neither smaller), so that two lists of the
        /// same patterns sort alike.
        func precedes(_ other: PatternIdentity) -> Bool {
            if pattern.kind != other.pattern.kind { return pattern.kind.rawValue < other.pattern.kind.rawValue }
            return ExactString(pattern.value).precedes(ExactString(other.pattern.value))
        }
    }
}
