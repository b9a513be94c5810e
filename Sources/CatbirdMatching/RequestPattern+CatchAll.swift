import CatbirdWire

extension RequestPattern {
    /// Whether this pattern matches every usual request of its method: no header or body
    /// pattern, and a url pattern every request-target matches, a `wildcard` of `*` alone (any
    /// run of them: `*` crosses `/`) or a `regexp` found in any target (``catchAllExpressions``).
    /// Such a mock without a `limit` answers every request of its method and tenant before any
    /// mock added after it (docs/matching.md#match-order), which can then never be served:
    /// `update` warns of that (tester finding try10a F13). "Every" but a target holding U+0085,
    /// U+2028 or U+2029, line terminators ICU's `.` does not cross (Catbird 0.11's semantics,
    /// kept; docs/matching.md#wildcard, tester finding tester38b-F1): the warning still names
    /// a mock for such a target, which is served.
    public var isCatchAll: Bool {
        guard headers.isEmpty, body == nil else { return false }
        switch url.kind {
        case .equal: return false
        case .wildcard: return !url.value.isEmpty && url.value.utf8.allSatisfy { $0 == UInt8(ascii: "*") }
        case .regexp: return Self.catchAllExpressions.contains(url.value)
        }
    }

    /// Regular expressions found in every request-target: an unanchored search of `.*` finds the
    /// empty match anywhere, and a target is never empty, so `.+` finds its first character.
    /// (ICU's `.` does not match a line terminator; a request-target holds none but a raw
    /// U+0085, U+2028 or U+2029, which no usual client sends.)
    static let catchAllExpressions: Set<String> = [
        "", "^", "$", ".*", ".+", "^.*", "^.+", ".*$", ".+$", "^.*$", "^.+$",
    ]
}
