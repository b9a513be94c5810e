import CatbirdWire

/// A `regexp` url copied from a real URL, whose `?` (or `+`) is a quantifier there
/// (`/search?q=swift` makes the `h` optional), so that it does not match the very URL it spells
/// (tester finding tester50b-F2: accepted without a word, and its 404 read "expected regexp
/// "/search?q=swift", got "/search?q=swift""). Named by `update`'s warnings and by a 404's hint.
public enum RegexpQuantifierSlip {
    /// For a `regexp` value that does not match its own text read literally (a leading `^` and
    /// a trailing `$` left out) and holds a `?` not escaped that starts a query (followed by a
    /// parameter's name and `=`: `?q=`, `?page=`), whose escaped form (that `?` and each `+`
    /// after it written `\?`, `\+`) does match that text: the text and the escaped form. Nil
    /// otherwise: a value that does not compile, or whose quantifiers are meant (`colou?r`,
    /// `^https?://`, `[0-9]+`).
    public static func slip(in regexp: String) -> (literal: String, escaped: String)? {
        let characters = Array(regexp)
        guard let query = firstQueryMark(in: characters) else { return nil }
        let literal = Self.literal(of: regexp)
        guard let compiled = try? CompiledPatternMatch(PatternMatch(kind: .regexp, value: regexp)),
              !compiled.matches(String(literal)) else { return nil }
        var escaped = String(characters[..<query])
        var afterBackslash = false
        for character in characters[query...] {
            if !afterBackslash && (character == "?" || character == "+") { escaped.append("\\") }
            afterBackslash = !afterBackslash && character == "\\"
            escaped.append(character)
        }
        guard let fixed = try? CompiledPatternMatch(PatternMatch(kind: .regexp, value: escaped)), fixed.matches(String(literal))
        else { return nil }
        return (String(literal), escaped)
    }

    /// `regexp` read as the url it spells: without a leading `^` and a trailing `$` (not an
    /// escaped `\$`).
    public static func literal(of regexp: String) -> Substring {
        var literal = Substring(regexp)
        if literal.hasPrefix("^") { literal = literal.dropFirst() }
        if literal.hasSuffix("$") && !literal.hasSuffix("\\$") { literal = literal.dropLast() }
        return literal
    }

    /// The index of the first `?` not escaped that a query parameter's name and `=` follow.
    private static func firstQueryMark(in characters: [Character]) -> Int? {
        var afterBackslash = false
        for (index, character) in characters.enumerated() {
            defer { afterBackslash = !afterBackslash && character == "\\" }
            guard !afterBackslash, character == "?" else { continue }
            let name = characters[(index + 1)...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-[]".contains($0)) }
            if !name.isEmpty, characters.indices.contains(index + 1 + name.count), characters[index + 1 + name.count] == "=" {
                return index
            }
        }
        return nil
    }
}
