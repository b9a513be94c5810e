import CatbirdTestSupport
import Foundation

/// Deterministic random wildcards, regular expressions and subjects for the differential tests
/// (on ``SeededRandom``: the same seed gives the same cases on every run and machine).
struct RandomPatterns {
    private var random: SeededRandom

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func below(_ bound: Int) -> Int { random.below(bound) }

    mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }

    mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }

    /// Characters subjects are made of: URL text in both cases, and the odd ones (line
    /// terminators, NUL, tab, DEL, non-ASCII that folds onto ASCII, emoji).
    static let subjectCharacters: [String] = Array("abcdkszABCDKSZ0129/-_.?=&%~:@!$()*+,;[]{}^|\\ ").map(String.init)
        + ["\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{00}", "\t", "\u{7F}", "é", "É", "ß", "ſ", "\u{212A}", "ﬆ", "İ", "ı",
           "\u{85}", "\u{2028}", "🐈", "кот", "\u{0301}"]

    /// Characters wildcards are made of: their metacharacters weighted up.
    static let wildcardCharacters: [String] = Array("abcdkszABKS09/-._=&%:,!$^+()|#~ ").map(String.init)
        + ["*", "*", "*", "?", "?", "[", "]", "{", "}", ",", ",", "\\", "\\*", "\\?", "\\.", "\\d", "\\\\", "\\{", "\\[",
           "[0-9]", "[a-c]", "[oz]", "[^a]", "[.]", "[*?]", "[K]", "[-a]", "[a-]", "[:alpha:]", "[[a]]", "[a b]",
           "{a,b}", "{x,*y}", "é", "ß", "\u{212A}", "ſ", "🐈", "\t", "\n"]

    mutating func wildcard() -> String {
        (0..<below(9)).map { _ in pick(Self.wildcardCharacters) }.joined()
    }

    mutating func subject() -> String {
        (0..<below(12)).map { _ in pick(Self.subjectCharacters) }.joined()
    }

    /// A subject likely to match `wildcard`: its literal characters kept, `*` and `?` filled
    /// in, classes and braces resolved to one choice, the case flipped at random, sometimes a
    /// line terminator or non-ASCII text mixed in.
    mutating func subject(near wildcard: String) -> String {
        var result = ""
        var scalars = Array(wildcard.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "*":
                for _ in 0..<below(4) { result += pick(Self.subjectCharacters.filter { $0.count == 1 && $0.unicodeScalars.first!.isASCII && $0 != "\n" && $0 != "\r" && $0 != "\r\n" }) }
            case "?":
                result += pick(["a", "/", "Z", "0", "é"])
            case "\\":
                if let escaped = scalars.popFirst() { result.unicodeScalars.append(escaped) }
            case "[":
                if let close = scalars.firstIndex(of: "]"), close > scalars.startIndex {
                    result.unicodeScalars.append(scalars[scalars.startIndex])
                    scalars = scalars[(close + 1)...]
                }
            case "{", "}", ",":
                if chance(50) { result.unicodeScalars.append(scalar) }
            default:
                let text = String(scalar)
                result += chance(30) ? (chance(50) ? text.uppercased() : text.lowercased()) : text
            }
            if chance(3) { result += pick(["\n", "\r\n", "\u{0B}", "ſ", "\u{212A}"]) }
        }
        return result
    }

    /// A regular expression of the shapes users write for URLs, with the constructs
    /// ``LiteralRequirement`` must be careful about mixed in.
    mutating func regularExpression() -> String {
        let pieces = ["/api", "/users/", "/V1", "books", "[0-9]+", "\\d+", "\\d", ".*", ".", "(a|b)", "x?", "y*", "z+",
                      "s{2}", "k{0,1}", "\\.", "\\?", "\\/", "\\w", "\\b", "$", "(?i)", "(?-i)ab", "\\x41", "\\u0041",
                      "\\QA.B\\E", "[a-z]", "[^/]+", "[]a]", "(?:q|r)", "é", "ß", "?", "=", "%20", "-", "|", "(c)*", "\\p{L}", "\\N{LATIN SMALL LETTER A}"]
        var expression = chance(50) ? "^" : ""
        for _ in 0..<(1 + below(5)) { expression += pick(pieces) }
        return expression
    }

    /// A subject likely to match a regular expression built by ``regularExpression()``.
    mutating func subject(nearExpression expression: String) -> String {
        var text = expression
        for (pattern, replacement) in [("^", ""), ("$", ""), ("[0-9]+", "42"), ("\\d+", "7"), ("\\d", "3"), (".*", "anything"),
                                       ("(a|b)", "b"), ("x?", ""), ("y*", "yy"), ("z+", "z"), ("s{2}", "ss"), ("k{0,1}", "k"),
                                       ("\\.", "."), ("\\?", "?"), ("\\/", "/"), ("\\w", "w"), ("(?i)", ""), ("(?-i)", ""),
                                       ("\\x41", "A"), ("\\u0041", "a"), ("\\QA.B\\E", "A.B"), ("[a-z]", "q"), ("[^/]+", "seg"),
                                       ("(?:q|r)", "r"), ("(c)*", "cc"), ("\\p{L}", "L"), ("\\N{LATIN SMALL LETTER A}", "a"), ("\\b", "")] {
            text = text.replacingOccurrences(of: pattern, with: replacement)
        }
        let prefix = chance(30) ? "/v2" : ""
        let suffix = chance(30) ? "?q=1" : ""
        return chance(30) ? (prefix + text + suffix).uppercased() : prefix + text + suffix
    }
}
