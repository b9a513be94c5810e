/// An ICU regular expression read once, left to right, into the pieces Catbird rewrites or
/// looks into (the translations of WireMock and MockServer expressions, the 404's hints):
/// what is inside a bracketed class, an end anchor, a numbered backreference, a lookahead's
/// opening and end, and everything else as written. One reader for all of them, so each knows the same things: an escape
/// (`\$`, `\[`), a `\Q…\E` quote, a class nested in a class (`[a-z&&[^b]]`) and a `]` first
/// in a class (`[]a]`, a literal), and the `x` flag (`(?x)`, `(?x:…)`), under which `#` starts
/// a comment to the end of the line, inside a class too (ICU reads `(?x)[#]` as an
/// unterminated class). The pieces, joined, are the expression as written.
///
/// Syntax: ICU's (unicode-org.github.io/icu/userguide/strings/regexp.html), which is Java's for
/// everything these pieces tell apart.
public struct ICURegexTokens: Sendable {
    /// One piece of the expression.
    public enum Token: Equatable, Sendable {
        /// Written as it is: literal text, an operator, a group's parenthesis or flags, an
        /// escape other than those below, a quote, a comment.
        case other(Substring)
        /// One character or escape inside a bracketed class (`é`, `\s`, `\p{L}`), and whether
        /// its innermost class is negated (`[^…]`); the brackets themselves are ``other(_:)``.
        case inClass(Substring, negated: Bool)
        /// `$`, `\z` or `\Z` outside a class and a quote.
        case endAnchor(Substring)
        /// A backslash and the digits after it (`\12`) outside a class: a numbered
        /// backreference, which takes as many of the digits as name a group (``groupNumber(_:groupCount:)``).
        case backreference(Substring)
        /// The opening of a lookahead, `(?=` or `(?!`.
        case lookahead(Substring)
        /// The `)` that closes a lookahead.
        case lookaheadEnd(Substring)
    }

    /// The pieces, in order.
    public let tokens: [Token]
    /// Whether a `\Q` quote is still open at the end (Java and ICU quote to the end then).
    public let endsQuoted: Bool
    /// Whether the `x` flag is on at the end, at the outermost level: a `#` comment there runs
    /// to the end of a line, so text appended to the expression needs a line break first.
    public let endsExtended: Bool

    public init(_ expression: String) {
        let text = Substring(expression)
        var tokens: [Token] = []
        var index = text.startIndex
        var quoted = false
        var extended = false
        var savedExtended: [Bool] = []  // per open group, the flag outside it
        var lookaheads: [Bool] = []  // per open group, whether it is a lookahead
        var classes: [Bool] = []  // per open class, whether it is negated
        var classJustOpened = false
        func next(_ i: Substring.Index) -> Character? { i < text.endIndex ? text[i] : nil }
        while index < text.endIndex {
            let start = index
            let character = text[index]
            index = text.index(after: index)
            let opened = classJustOpened
            classJustOpened = false
            if character == "\\" {
                guard let escaped = next(index) else {
                    tokens.append(.other(text[start...]))
                    break
                }
                index = text.index(after: index)
                if escaped == "Q" {
                    // `\Q`, what it quotes and its `\E` are one piece; without an `\E` it quotes to the end.
                    var end = index
                    while end < text.endIndex, !(text[end] == "\\" && next(text.index(after: end)) == "E") { end = text.index(after: end) }
                    if end < text.endIndex { end = text.index(end, offsetBy: 2) } else { quoted = true }
                    index = end
                    tokens.append(classes.isEmpty ? .other(text[start..<end]) : .inClass(text[start..<end], negated: classes.last!))
                    continue
                }
                if classes.isEmpty, escaped.isASCII, escaped.isNumber, escaped != "0" {
                    while let digit = next(index), digit.isASCII, digit.isNumber { index = text.index(after: index) }
                    tokens.append(.backreference(text[start..<index]))
                    continue
                }
                // `\p{L}`, `\N{…}`, `\x{…}`: with their braces.
                if "pPNx".contains(escaped), next(index) == "{" {
                    while let c = next(index), c != "}" { index = text.index(after: index) }
                    if index < text.endIndex { index = text.index(after: index) }
                }
                let piece = text[start..<index]
                if let negated = classes.last {
                    tokens.append(.inClass(piece, negated: negated))
                } else {
                    tokens.append(escaped == "z" || escaped == "Z" ? .endAnchor(piece) : .other(piece))
                }
                continue
            }
            if extended, character == "#" {
                while let c = next(index), c != "\n" { index = text.index(after: index) }
                tokens.append(.other(text[start..<index]))
                continue
            }
            if character == "[" {
                // A class, or a set inside one (`[a-z&&[^b]]`).
                let negated = next(index) == "^"
                if negated { index = text.index(after: index) }
                classes.append(negated)
                classJustOpened = true
                tokens.append(.other(text[start..<index]))
                continue
            }
            if let negated = classes.last {
                if character == "]", !opened {
                    classes.removeLast()
                    tokens.append(.other(text[start..<index]))
                } else {
                    tokens.append(.inClass(text[start..<index], negated: negated))
                }
                continue
            }
            switch character {
            case "$":
                tokens.append(.endAnchor(text[start..<index]))
            case "(":
                savedExtended.append(extended)
                lookaheads.append(false)
                if next(index) == "?", let kind = next(text.index(after: index)), kind == "=" || kind == "!" {
                    lookaheads[lookaheads.count - 1] = true
                    index = text.index(index, offsetBy: 2)
                    tokens.append(.lookahead(text[start..<index]))
                    continue
                }
                if next(index) == "?" {
                    // Flags: `(?ix-s)` for the rest of the group around it, `(?x:…)` inside.
                    var end = text.index(after: index)
                    while let c = next(end), c.isASCII, c.isLetter || c == "-" { end = text.index(after: end) }
                    let flags = text[text.index(after: index)..<end]
                    if let close = next(end), close == ")" || close == ":", !flags.isEmpty {
                        let off = flags.firstIndex(of: "-").map { flags[$0...] } ?? ""
                        let on = flags.firstIndex(of: "-").map { flags[..<$0] } ?? flags
                        let newExtended = on.contains("x") ? true : off.contains("x") ? false : extended
                        end = text.index(after: end)
                        if close == ")" {
                            savedExtended.removeLast()  // no group: the flags hold in the one around
                            lookaheads.removeLast()
                        }
                        extended = newExtended
                        index = end
                    } else if next(text.index(after: index)) == "#" {
                        // `(?#…)`: a comment to the next `)`.
                        savedExtended.removeLast()
                        lookaheads.removeLast()
                        while let c = next(index), c != ")" { index = text.index(after: index) }
                        if index < text.endIndex { index = text.index(after: index) }
                    }
                }
                tokens.append(.other(text[start..<index]))
            case ")":
                if let outer = savedExtended.popLast() { extended = outer }
                let closesLookahead = lookaheads.popLast() ?? false
                tokens.append(closesLookahead ? .lookaheadEnd(text[start..<index]) : .other(text[start..<index]))
            default:
                tokens.append(.other(text[start..<index]))
            }
        }
        self.tokens = tokens
        endsQuoted = quoted
        endsExtended = extended
    }

    /// The group a backreference piece (`\12`) names, and the digits after it that are literal
    /// text: ICU takes the first digit, then each next one while the number stays at most the
    /// expression's `groupCount` (`(a)\12` is group 1 and a `2`; measured with Foundation's
    /// `NSRegularExpression`).
    public static func groupNumber(_ piece: Substring, groupCount: Int) -> (group: Int, literalDigits: Substring) {
        let digits = piece.dropFirst()
        var group = Int(String(digits.first!))!
        var rest = digits.dropFirst()
        while let digit = rest.first, let value = Int(String(digit)), group * 10 + value <= groupCount {
            group = group * 10 + value
            rest = rest.dropFirst()
        }
        return (group, rest)
    }
}
