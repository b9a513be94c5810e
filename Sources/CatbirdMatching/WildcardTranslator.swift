/// Translates Catbird 0.11 wildcard patterns into ICU regular expressions.
///
/// Source of the rules: docs/matching.md#wildcard (Catbird 0.11's wildcard translation). The result is
/// compiled case-insensitively by ``CompiledPatternMatch``.
public enum WildcardTranslator {
    /// Catbird 0.11 wildcard → regular expression, anchored as `^…$`. Rules, as docs/matching.md#wildcard states them,
    /// applied one Unicode scalar at a time:
    /// - `*`, and any run of consecutive stars, → `.*` (crosses `/`);
    /// - `?` → `.` (exactly one character, `/` included);
    /// - `[` and `]` pass through, so `[a-z]` is a character class (a `^` inside is escaped by the
    ///   rule below and is therefore literal: no negation);
    /// - `{` → `(`, `}` → `)`, and `,` inside braces → `|` (braces do not nest: the first `}` closes);
    ///   `,` outside braces is copied literally;
    /// - `\X` passes `\X` through unchanged (so `\*`, `\?` are literal); a trailing lone `\` becomes `\\`
    ///   (a literal backslash);
    /// - `/ $ ^ + . ( ) = ! |` are escaped with a backslash;
    /// - every other character is copied.
    ///
    /// Example: `foo{bar,b*z}` → `^foo(bar|b.*z)$`. Unbalanced braces or brackets produce an invalid
    /// regular expression, reported when the pattern is compiled.
    public static func regularExpression(fromWildcard wildcard: String) -> String {
        var output = String.UnicodeScalarView()
        var inBraces = false
        var scalars = wildcard.unicodeScalars.makeIterator()
        var pending = scalars.next()

        output.append("^")
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "*":
                while pending == "*" { pending = scalars.next() }
                output.append(contentsOf: ".*".unicodeScalars)
            case "?":
                output.append(".")
            case "[", "]":
                output.append(scalar)
            case "{":
                inBraces = true
                output.append("(")
            case "}":
                inBraces = false
                output.append(")")
            case ",":
                output.append(inBraces ? "|" : ",")
            case "\\":
                output.append("\\")
                if let escaped = pending {
                    output.append(escaped)
                    pending = scalars.next()
                } else {
                    output.append("\\")
                }
            case "/", "$", "^", "+", ".", "(", ")", "=", "!", "|":
                output.append("\\")
                output.append(scalar)
            default:
                output.append(scalar)
            }
        }
        output.append("$")
        return String(output)
    }
}
