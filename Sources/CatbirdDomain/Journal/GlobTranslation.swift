/// A case-insensitive ICU regular expression (a `regexp` pattern, or a wildcard's translation)
/// restated as SQLite `GLOB` patterns, for counting the journal in SQL
/// (docs/matching.md#pattern-kinds; <https://www.sqlite.org/lang_expr.html#glob>).
///
/// **Exact on printable ASCII, never too strict on ASCII.** For a subject made of characters
/// U+0020…U+007E, the subject matches the expression (unanchored search, case-insensitive, as
/// `CompiledPatternMatch` does it) exactly when it matches one of ``patterns`` (`GLOB` is
/// case-sensitive and anchored): on that alphabet ICU's case-insensitive matching is ASCII case
/// folding, `.` is any character and `$` the end. For any ASCII subject (control characters
/// included) the patterns admit every subject ICU matches (`.` and negated classes admit the
/// control characters, a `$` also admits a trailing line terminator), so a subject they refuse
/// does not match. What remains — a GLOB match whose subject is not printable, any subject with
/// a non-ASCII character (ICU folds `K` U+212A to `k`, `ſ` to `s`, `ß` to `ss`…) — must be
/// decided by the Swift matcher.
///
/// Translated: literals (each letter becomes `[xX]`), `\X` for X not a letter or digit,
/// `\d`, `.`, `.*`, `.+`, character classes of literals and ranges (negated too), groups
/// `( … | … )`, `X?`, a leading `^` and a trailing `$` per top-level alternative, and `X*` / `X+`
/// at an unanchored end (where they mean "nothing more" / "one X"). Anything else (other
/// escapes, `(?…)`, counted repetition, repetition elsewhere, non-ASCII) is not translated:
/// ``init(regularExpression:)`` returns nil. Alternatives expand to at most
/// ``maxPatterns`` patterns.
struct GlobTranslation: Equatable {
    /// The most GLOB patterns one expression may expand to.
    static let maxPatterns = 32

    /// A subject of printable ASCII matches when it matches any of these (never empty).
    let patterns: [String]

    /// One piece of a pattern: a set of ASCII characters (one character of the subject), or
    /// `any` for a run of any length.
    private enum Piece: Equatable {
        case one(Set<UInt8>)
        case any
    }

    private typealias Sequence = [Piece]

    /// The printable ASCII characters, where this translation is exact.
    private static let printable: Set<UInt8> = Set(0x20...0x7E)
    /// Every ASCII character a stored text may hold (NUL cannot be in one).
    private static let ascii: Set<UInt8> = Set(0x01...0x7F)
    /// The ASCII characters ICU's `$` may find after the end of a match: LF, VT, FF, CR.
    private static let lineTerminators: Set<UInt8> = Set(0x0A...0x0D)

    /// The GLOB patterns for `expression`, or nil when it is outside the translated subset.
    init?(regularExpression expression: String) {
        let bytes = Array(expression.utf8)
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { return nil }
        var parser = Parser(bytes: bytes)
        guard let alternatives = parser.topLevel(), parser.index == bytes.count else { return nil }
        var patterns: [String] = []
        for alternative in alternatives {
            for sequence in alternative {
                guard let text = Self.glob(sequence) else { continue }  // an empty class: no match
                if !patterns.contains(text) { patterns.append(text) }
                if patterns.count > Self.maxPatterns { return nil }
            }
        }
        // Every alternative needs a character no subject has: matches nothing.
        self.patterns = patterns.isEmpty ? ["[]"] : patterns
    }

    /// `sequence` as GLOB text, or nil when a piece admits no character.
    private static func glob(_ sequence: Sequence) -> String? {
        var text = ""
        var previousAny = false
        for piece in sequence {
            switch piece {
            case .any:
                if !previousAny { text += "*" }
                previousAny = true
            case .one(let set):
                previousAny = false
                guard let one = globCharacter(set) else { return nil }
                text += one
            }
        }
        return text
    }

    /// One GLOB element admitting exactly the printable characters of `set` and at least its
    /// other ones: `?` when it holds every printable character, a bracketed literal for a
    /// special character, the character itself, or a class.
    private static func globCharacter(_ members: Set<UInt8>) -> String? {
        if members.isEmpty { return nil }
        if members.isSuperset(of: printable) { return "?" }
        if members.count == 1, let only = members.first {
            switch only {
            case UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "["): return "[\(Character(UnicodeScalar(only)))]"
            default: return String(Character(UnicodeScalar(only)))
            }
        }
        // A class: `]` first (literal there), `-` last (literal there), `^` never first; the
        // rest as ranges of consecutive characters.
        var body = members.contains(UInt8(ascii: "]")) ? "]" : ""
        let special: Set<UInt8> = [UInt8(ascii: "]"), UInt8(ascii: "-"), UInt8(ascii: "^")]
        let rest = members.subtracting(special).sorted()
        var index = 0
        while index < rest.count {
            var end = index
            while end + 1 < rest.count, rest[end + 1] == rest[end] + 1 { end += 1 }
            let first = Character(UnicodeScalar(rest[index]))
            let last = Character(UnicodeScalar(rest[end]))
            body += end - index >= 2 ? "\(first)-\(last)" : String(rest[index...end].map { Character(UnicodeScalar($0)) })
            index = end + 1
        }
        // `-` where it is literal (first, when nothing precedes it, else last); `^` never first.
        if members.contains(UInt8(ascii: "-")) { body = body.isEmpty ? "-" : body }
        if members.contains(UInt8(ascii: "^")) { body += "^" }
        if members.contains(UInt8(ascii: "-")), body != "-", !body.hasPrefix("-") { body += "-" }
        return "[\(body)]"
    }

    /// A recursive-descent reader of the translated subset; every method returns nil for
    /// anything outside it.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        /// Top-level alternatives, each with its own anchors, each expanded to sequences.
        mutating func topLevel() -> [[Sequence]]? {
            var alternatives: [[Sequence]] = []
            while true {
                var anchoredStart = false
                if current == UInt8(ascii: "^") { anchoredStart = true; index += 1 }
                guard var items = sequence(insideGroup: false) else { return nil }
                var anchoredEnd = false
                if current == UInt8(ascii: "$") {
                    anchoredEnd = true
                    index += 1
                    guard current == nil || current == UInt8(ascii: "|") else { return nil }
                }
                // Repetition at an unanchored end: `X*` there adds nothing, `X+` one X.
                if !anchoredEnd, let last = items.last, case .repeated(let atom, let atLeastOne) = last {
                    items.removeLast()
                    if atLeastOne { items.append(.plain(atom)) }
                }
                if !anchoredStart, let first = items.first, case .repeated(let atom, let atLeastOne) = first {
                    items.removeFirst()
                    if atLeastOne { items.insert(.plain(atom), at: 0) }
                }
                guard var expanded = Self.expand(items) else { return nil }
                expanded = expanded.flatMap { sequence -> [GlobTranslation.Sequence] in
                    let start: GlobTranslation.Sequence = anchoredStart ? [] : [.any]
                    guard anchoredEnd else { return [start + sequence + [.any]] }
                    // ICU's `$` also matches before a line terminator ending the subject.
                    return [
                        start + sequence, start + sequence + [.one(GlobTranslation.lineTerminators)],
                        start + sequence + [.one([0x0D]), .one([0x0A])],
                    ]
                }
                alternatives.append(expanded)
                guard current == UInt8(ascii: "|") else { break }
                index += 1
            }
            return alternatives
        }

        /// An item of a sequence before expansion.
        private indirect enum Item {
            case plain(Atom)
            /// `X*` (`atLeastOne` false) or `X+`; only `.` may repeat inside a sequence.
            case repeated(Atom, atLeastOne: Bool)
            /// `X?`.
            case optional(Atom)
        }

        private indirect enum Atom {
            case one(Set<UInt8>)
            case group([[Item]])
        }

        /// Items up to `|`, `)`, `$` or the end.
        private mutating func sequence(insideGroup: Bool) -> [Item]? {
            var items: [Item] = []
            while let byte = current {
                if byte == UInt8(ascii: "|") || byte == UInt8(ascii: ")") { break }
                if byte == UInt8(ascii: "$") { if insideGroup { return nil } else { break } }
                guard let atom = atom() else { return nil }
                switch current {
                case UInt8(ascii: "*"), UInt8(ascii: "+"):
                    let atLeastOne = current == UInt8(ascii: "+")
                    index += 1
                    guard !isQuantifierModifier else { return nil }
                    items.append(.repeated(atom, atLeastOne: atLeastOne))
                case UInt8(ascii: "?"):
                    index += 1
                    guard !isQuantifierModifier else { return nil }
                    items.append(.optional(atom))
                case UInt8(ascii: "{"):
                    return nil
                default:
                    items.append(.plain(atom))
                }
            }
            return items
        }

        /// A lazy (`?`) or possessive (`+`) marker after a quantifier.
        private var isQuantifierModifier: Bool {
            current == UInt8(ascii: "?") || current == UInt8(ascii: "+") || current == UInt8(ascii: "*")
        }

        private mutating func atom() -> Atom? {
            guard let byte = current else { return nil }
            index += 1
            switch byte {
            case UInt8(ascii: "."):
                return .one(GlobTranslation.ascii)
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                index += 1
                if escaped == UInt8(ascii: "d") { return .one(Set(UInt8(ascii: "0")...UInt8(ascii: "9"))) }
                guard !Self.isAlphanumeric(escaped) else { return nil }
                return .one([escaped])
            case UInt8(ascii: "["):
                return characterClass().map { .one($0) }
            case UInt8(ascii: "("):
                guard current != UInt8(ascii: "?") else { return nil }
                var alternatives: [[Item]] = []
                while true {
                    guard let items = sequence(insideGroup: true) else { return nil }
                    alternatives.append(items)
                    guard let next = current else { return nil }
                    index += 1
                    if next == UInt8(ascii: ")") { break }
                }
                return .group(alternatives)
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                 UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: ")"), UInt8(ascii: "|"):
                return nil
            default:
                return .one(Self.caseClosure([byte]))
            }
        }

        /// The members of a class after `[`, through its `]`: literals, `\X` for X not a letter
        /// or digit, `\d`, ranges of literals; a leading `^` negates. Closed under ASCII case,
        /// as ICU's case-insensitive classes are on this alphabet.
        private mutating func characterClass() -> Set<UInt8>? {
            var negated = false
            if current == UInt8(ascii: "^") { negated = true; index += 1 }
            var members: Set<UInt8> = []
            var first = true
            while true {
                guard let byte = current else { return nil }
                if byte == UInt8(ascii: "]") {
                    guard !first else { return nil }  // `[]…` means different things to different engines
                    index += 1
                    break
                }
                if byte == UInt8(ascii: "-"), first || (index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "]")) {
                    // A `-` first or last is a literal.
                    members.insert(byte)
                    index += 1
                    first = false
                    continue
                }
                // `[:…:]` is an ICU property set, not the characters `:`, `a`, …
                if first && byte == UInt8(ascii: ":") { return nil }
                first = false
                guard let low = classMember() else { return nil }
                if current == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "]") {
                    index += 1
                    guard low.count == 1, let start = low.first, let high = classMember(), high.count == 1,
                          let end = high.first, start <= end
                    else { return nil }
                    members.formUnion(start...end)
                } else {
                    members.formUnion(low)
                }
            }
            let closed = Self.caseClosure(members)
            return negated ? GlobTranslation.ascii.subtracting(closed) : closed
        }

        /// One member of a class: a literal (one byte), or the set `\d` stands for.
        private mutating func classMember() -> Set<UInt8>? {
            guard let byte = current else { return nil }
            index += 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard let escaped = current else { return nil }
                index += 1
                if escaped == UInt8(ascii: "d") { return Set(UInt8(ascii: "0")...UInt8(ascii: "9")) }
                return Self.isAlphanumeric(escaped) ? nil : [escaped]
            case UInt8(ascii: "["), UInt8(ascii: "&"), UInt8(ascii: "-"):
                // Nested classes, `&&`, and a `-` that is not at an end: ICU set syntax we leave alone.
                return nil
            default:
                return [byte]
            }
        }

        private static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
        }

        /// `set` with the other case of every ASCII letter added.
        private static func caseClosure(_ set: Set<UInt8>) -> Set<UInt8> {
            var closed = set
            for byte in set where (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) {
                closed.insert(byte ^ 0x20)
            }
            return closed
        }

        /// Every sequence of pieces `items` can match, or nil when there are more than
        /// ``GlobTranslation/maxPatterns`` or a repetition other than `.*`/`.+` remains.
        private static func expand(_ items: [Item]) -> [GlobTranslation.Sequence]? {
            var results: [GlobTranslation.Sequence] = [[]]
            for item in items {
                let options: [GlobTranslation.Sequence]
                switch item {
                case .plain(let atom):
                    guard let expanded = expand(atom) else { return nil }
                    options = expanded
                case .optional(let atom):
                    guard let expanded = expand(atom) else { return nil }
                    options = expanded + [[]]
                case .repeated(let atom, let atLeastOne):
                    guard case .one(let set) = atom, set == GlobTranslation.ascii else { return nil }
                    options = [atLeastOne ? [.one(set), .any] : [.any]]
                }
                var next: [GlobTranslation.Sequence] = []
                for prefix in results {
                    for option in options {
                        next.append(prefix + option)
                        if next.count > GlobTranslation.maxPatterns { return nil }
                    }
                }
                results = next
            }
            return results
        }

        private static func expand(_ atom: Atom) -> [GlobTranslation.Sequence]? {
            switch atom {
            case .one(let set):
                return [[.one(set)]]
            case .group(let alternatives):
                var results: [GlobTranslation.Sequence] = []
                for alternative in alternatives {
                    guard let expanded = expand(alternative) else { return nil }
                    results += expanded
                    if results.count > GlobTranslation.maxPatterns { return nil }
                }
                return results
            }
        }
    }
}
