import CatbirdSupport
import CatbirdWire

/// A `wildcard` whose character class (`[…]`) holds `?`, `*`, `{` or `}` (or `,` inside braces),
/// or starts with `!` or `^`:
/// Catbird 0.11's translation reads them there as everywhere (`?` → `.`, `*` → `.*`, `{` →
/// `(`, `}` → `)`, `,` in braces → `|`, `!` → `\!`, `^` → `\^`; docs/matching.md#wildcard), so `[?]` is `[.]` and matches a
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
            + "class Catbird 0.11's translation still reads ? as ., * as .*, { as ( and } as ) (and , inside braces as |), and a "
            + "leading ! or ^ is a literal, not a negation (\"[?]\" is [.], matching a '.', not a '?'), so \(subject) may match other requests than written; "
            + "for a literal ?, * or { write \\?, \\* or \\{ outside a class (docs/matching.md#wildcard)"
    }

    /// What of `wildcard`'s classes 0.11 translates otherwise than a glob reads it (each once,
    /// quoted): `?`, `*`, `{`, `}`, a `,` inside braces, a leading `!` or `^` (literal there);
    /// nil when none. Read one Unicode scalar at a time, as ``CatbirdMatching/WildcardTranslator``
    /// reads it: a `\` escapes the next scalar, in and out of a class; braces open and close
    /// wherever they stand (the translator does not know classes); a `]` right after the `[`
    /// (or its `!`/`^`) is part of the class.
    static func classSlips(_ wildcard: String) -> [String]? {
        var slips: [String] = []
        func note(_ slip: String) { if !slips.contains(slip) { slips.append(slip) } }
        var (inClass, classStart, inBraces) = (false, false, false)
        var scalars = wildcard.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\\" {
                _ = scalars.next()
                classStart = false
                continue
            }
            if scalar == "{" { inBraces = true }
            if scalar == "}" { inBraces = false }
            guard inClass else {
                if scalar == "[" { (inClass, classStart) = (true, true) }
                continue
            }
            if classStart, scalar == "!" || scalar == "^" {
                note("a leading \(scalar)")
                continue
            }
            if scalar == "]", !classStart {
                inClass = false
                continue
            }
            classStart = false
            if "?*{}".unicodeScalars.contains(scalar) { note("'\(scalar)'") }
            if scalar == ",", inBraces { note("',' inside braces") }
        }
        return slips.isEmpty ? nil : slips
    }
}
