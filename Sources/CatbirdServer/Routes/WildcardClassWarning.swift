import CatbirdSupport
import CatbirdWire

/// A `wildcard` whose character class (`[…]`) holds `?`, `*`, `{` or `}`, or starts with `!`:
/// Catbird 0.11's translation reads them there as everywhere (`?` → `.`, `*` → `.*`, `{` →
/// `(`, `}` → `)`, `!` → `\!`; docs/matching.md#wildcard), so `[?]` is `[.]` and matches a
/// `.`, not a `?`, and `[!a-c]` matches `!` and a to c, not what a glob's negation would (tester
/// finding tester69b-F1: such a mock got a bare 201 and answered other requests than written).
/// The mock is kept as sent, matching as 0.11 matches it; the 201 says so.
enum WildcardClassWarning {
    /// The warning for `pattern`'s url and header patterns, or nil when no wildcard of them
    /// has such a class. `subject`: "this mock" (an `update`) or "this pattern" (count, find, wait).
    static func warning(for pattern: RequestPattern, subject: String = "this mock") -> String? {
        var fields: [(name: String, value: String)] = []
        if pattern.url.kind == .wildcard { fields.append(("'pattern.url.value'", pattern.url.value)) }
        for (name, header) in pattern.headers.sorted(by: { $0.key < $1.key }) where header.kind == .wildcard {
            fields.append(("header pattern \(name)", header.value))
        }
        let odd = fields.compactMap { field in classSlips(field.value).map { (field, $0) } }
        guard let ((name, value), slips) = odd.first else { return nil }
        return "\(name) \(JSONText.shortString(value)) is a wildcard whose […] holds \(slips.joined(separator: ", ")): inside a "
            + "class Catbird 0.11's translation still reads ? as ., * as .*, { as ( and } as ), and a leading ! is a literal !, "
            + "not a negation (\"[?]\" is [.], matching a '.', not a '?'), so \(subject) may match other requests than written; "
            + "for a literal ?, * or { write \\?, \\* or \\{ outside a class (docs/matching.md#wildcard)"
    }

    /// The characters of `wildcard`'s classes that 0.11 translates (each once, quoted), a
    /// leading `!` as "a leading !"; nil when none. A `\` escapes the next character, in and
    /// out of a class; a `]` right after the `[` (or its `!`) is part of the class.
    static func classSlips(_ wildcard: String) -> [String]? {
        var slips: [String] = []
        var inClass = false
        var classStart = false
        var escaped = false
        for character in wildcard {
            if escaped {
                escaped = false
                classStart = false
                continue
            }
            if character == "\\" {
                escaped = true
                continue
            }
            if !inClass {
                if character == "[" {
                    inClass = true
                    classStart = true
                }
                continue
            }
            if classStart, character == "!" {
                if !slips.contains("a leading !") { slips.append("a leading !") }
                continue
            }
            if character == "]", !classStart {
                inClass = false
                continue
            }
            classStart = false
            if "?*{}".contains(character), !slips.contains("'\(character)'") { slips.append("'\(character)'") }
        }
        return slips.isEmpty ? nil : slips
    }
}
