import CatbirdSupport

/// Text a subject must hold for a regular expression to match it, read from the expression
/// conservatively: what lets ``PatternIndex`` skip most wildcard and regexp mocks for a request.
///
/// Both parts are ASCII, lowercased, and hold only for ASCII subjects matched case-insensitively
/// (a non-ASCII subject can match ASCII text by Unicode case folding: `ſ` matches `s`); the index
/// tries every pattern for other subjects. Either part may be empty, meaning "no requirement".
/// Anything the reader is unsure of (`(?` flags other than a leading `(?i)` or `(?-i)`, `\Q`, a top-level `|`, escapes taking
/// arguments such as `\x41`) gives no requirement at all, never a wrong one.
public struct LiteralRequirement: Sendable, Equatable {
    /// The subject starts with these bytes (ASCII case-insensitively): the literal run right
    /// after a leading `^`, at most ``maximumPrefix`` bytes.
    public let prefix: [UInt8]
    /// The subject contains these bytes somewhere (ASCII case-insensitively): the longest
    /// literal run outside every group, class and quantifier.
    public let infix: [UInt8]

    /// A prefix longer than this is cut (still a requirement): 32 bytes.
    public static let maximumPrefix = 32

    /// No requirement.
    public static let none = LiteralRequirement(prefix: [], infix: [])

    init(prefix: [UInt8], infix: [UInt8]) {
        self.prefix = Array(prefix.prefix(Self.maximumPrefix))
        self.infix = infix
    }

    /// Reads `expression` (ICU syntax, as compiled case-insensitively by ``CompiledPatternMatch``).
    public init(regularExpression expression: String) {
        var scalars = Array(expression.unicodeScalars)
        // A leading `(?i)` changes nothing: the expression is compiled case-insensitively anyway.
        // A leading `(?-i)` (the WireMock translation's, ForeignStubShape+WireMock.swift) makes
        // it case-sensitive: it then matches only subjects it matched case-insensitively, so
        // what those must hold still holds.
        if scalars.starts(with: "(?i)".unicodeScalars) {
            scalars.removeFirst(4)
        } else if scalars.starts(with: "(?-i)".unicodeScalars) {
            scalars.removeFirst(5)
        }
        var reader = Reader(scalars)
        self = reader.read() ?? .none
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0
        var prefix: [UInt8] = []
        var prefixOpen = false
        var run: [UInt8] = []
        var longest: [UInt8] = []

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        mutating func read() -> LiteralRequirement? {
            if contains("(?") || contains("\\Q") { return nil }
            if scalars.first == "^" {
                index = 1
                prefixOpen = true
            }
            /// Whether the last item was an atom a quantifier may follow.
            var afterAtom = false
            while index < scalars.count {
                let scalar = scalars[index]
                switch scalar {
                case "*", "?", "+", "{":
                    guard afterAtom else { return nil }
                    if scalar != "+", run.last != nil, lastWasLiteral {
                        run.removeLast()
                        if prefixOpen { prefix.removeLast() }
                    }
                    guard skipQuantifier() else { return nil }
                    endRun()
                    afterAtom = false
                    continue
                case "|", ")":
                    return nil
                case "(":
                    guard skipGroup() else { return nil }
                    endRun()
                case "[":
                    guard skipClass() else { return nil }
                    endRun()
                case ".", "^", "$":
                    index += 1
                    endRun()
                case "\\":
                    guard index + 1 < scalars.count else { return nil }
                    let escaped = scalars[index + 1]
                    index += 2
                    if let byte = GlobMatcher.Parser.escapedLiteral(escaped) {
                        literal(byte)
                    } else if escaped.isASCII, "dDwWsShHvVbBRXAZzGntrfea".unicodeScalars.contains(escaped) {
                        endRun()
                    } else {
                        return nil
                    }
                default:
                    index += 1
                    if scalar.isASCII { literal(UInt8(scalar.value)) } else { endRun() }
                }
                afterAtom = true
            }
            endRun()
            return LiteralRequirement(prefix: prefix, infix: longest)
        }

        /// True right after ``literal(_:)`` (a quantifier then applies to that byte alone).
        private var lastWasLiteral = false

        private mutating func literal(_ byte: UInt8) {
            run.append(ASCIICase.lower(byte))
            if prefixOpen { prefix.append(ASCIICase.lower(byte)) }
            lastWasLiteral = true
        }

        private mutating func endRun() {
            if run.count > longest.count { longest = run }
            run = []
            prefixOpen = false
            lastWasLiteral = false
        }

        /// Compared in place: an array made at each position cost about half a second per
        /// megabyte of expression, paid by every stored multi-megabyte expression at start-up
        /// (try9b F14).
        private func contains(_ text: String) -> Bool {
            let needle = Array(text.unicodeScalars)
            guard scalars.count >= needle.count else { return false }
            return (0...(scalars.count - needle.count)).contains { scalars[$0..<($0 + needle.count)].elementsEqual(needle) }
        }

        /// Skips `*`, `?`, `+` or `{…}` and a lazy `?` or possessive `+` after it.
        private mutating func skipQuantifier() -> Bool {
            if scalars[index] == "{" {
                guard let close = scalars[index...].firstIndex(of: "}") else { return false }
                index = close + 1
            } else {
                index += 1
            }
            if index < scalars.count, scalars[index] == "?" || scalars[index] == "+" { index += 1 }
            return true
        }

        /// Skips a balanced `(…)`, with the escapes and classes inside it.
        private mutating func skipGroup() -> Bool {
            var depth = 0
            while index < scalars.count {
                switch scalars[index] {
                case "\\": index += 2; continue
                case "[": guard skipClass() else { return false }; continue
                case "(": depth += 1
                case ")":
                    depth -= 1
                    if depth == 0 { index += 1; return true }
                default: break
                }
                index += 1
            }
            return false
        }

        /// Skips a `[…]` set, nested sets and escapes included; refuses `[]…` and `[^]…`, whose
        /// first `]` might be a member.
        private mutating func skipClass() -> Bool {
            var depth = 0
            while index < scalars.count {
                switch scalars[index] {
                case "\\": index += 2; continue
                case "[":
                    depth += 1
                    var next = index + 1
                    if next < scalars.count, scalars[next] == "^" { next += 1 }
                    if next < scalars.count, scalars[next] == "]" { return false }
                case "]":
                    depth -= 1
                    if depth == 0 { index += 1; return true }
                default: break
                }
                index += 1
            }
            return false
        }
    }
}
