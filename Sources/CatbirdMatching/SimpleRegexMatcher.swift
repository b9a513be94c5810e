import CatbirdSupport

/// A regexp matched without ICU: the plain subset URL patterns are mostly written in
/// (`^/api/users/[0-9]+$`, `users/\d+`, `\.json$`), compiled to a small automaton.
///
/// docs/matching.md#pattern-kinds says a regexp is searched by ICU, case-insensitively; this
/// type gives the same answer for the subjects it accepts (``matches(_:)`` returns nil for the
/// others, and the caller asks ICU), on the terms of ``GlobMatcher``: the subject is ASCII
/// without line terminators, so `.` is any byte, `$` the end, and case folding ASCII's.
///
/// ``init?(expression:)`` accepts an optional leading `^`, an optional trailing `$`, and between
/// them a sequence of atoms (ASCII literals, `\X` with X ASCII punctuation, `.`, `\d`, classes of
/// ASCII literals and ranges, negated or not), each optionally quantified by `?`, `*`, `+`,
/// `{n}`, `{n,}` or `{n,m}` (a lazy `?` after it changes nothing when only whether it matches is
/// asked). Groups, `|`, other escapes, possessive quantifiers, non-ASCII text and inline flags stay with ICU.
/// At most ``maximumElements`` atoms once `{n,m}` is spelled out. Matching simulates the
/// automaton over the subject: O(subject × pattern), no backtracking.
public struct SimpleRegexMatcher: Sendable, Equatable {
    /// One atom and how often it may occur.
    struct Element: Sendable, Equatable {
        enum Repeat: Sendable, Equatable {
            case once, optional, any
        }

        let atom: GlobMatcher.Element
        let repeats: Repeat
    }

    /// Longest automaton accepted: one bit per state in a 64-bit set.
    public static let maximumElements = 63

    let elements: [Element]
    let anchoredStart: Bool
    let anchoredEnd: Bool
    /// The lowercased bytes of an expression made of literals only, each once (`json$`,
    /// `^/api/users`, `items`): matched by comparing bytes, with no automaton.
    let literal: [UInt8]?
    /// How many elements at the start, after a leading `^`, are single literal bytes (`^/api/`
    /// of `^/api/[0-9]+$`: 5): compared byte by byte before the automaton starts after them.
    let anchoredLiteralCount: Int
    /// Element i's accepted subject bytes (its atom, ASCII case folded as the atom compares):
    /// bit b of `lowSets[i]` for byte b < 64, bit b − 64 of `highSets[i]` for 64 ≤ b < 128
    /// (the automaton runs on plain ASCII subjects only).
    let lowSets: [UInt64]
    let highSets: [UInt64]
    /// Bit i set when element i may be skipped (`?`, `*`): ``closure(_:)`` follows these.
    let skippable: UInt64
    /// Bit i set when element i repeats (`*`): a byte it accepts keeps the automaton there.
    let repeating: UInt64

    /// Compiles a regexp value, or nil when it uses anything this type does not handle.
    public init?(expression: String) {
        var parser = GlobMatcher.Parser(scalars: Array(expression.unicodeScalars))
        var end = parser.scalars.count
        anchoredStart = parser.scalars.first == "^"
        if anchoredStart { parser.index = 1 }
        // A trailing `$` anchors unless it is escaped (`\$`): count the backslashes before it.
        var anchoredEnd = false
        if end > parser.index, parser.scalars[end - 1] == "$" {
            var backslashes = 0
            while end - 2 - backslashes >= parser.index, parser.scalars[end - 2 - backslashes] == "\\" { backslashes += 1 }
            if backslashes.isMultiple(of: 2) {
                anchoredEnd = true
                end -= 1
            }
        }
        self.anchoredEnd = anchoredEnd
        var elements: [Element] = []
        while parser.index < end {
            guard let atom = Self.atom(&parser, end: end) else { return nil }
            var count: (low: Int, high: Int?) = (1, 1)
            if parser.index < end {
                switch parser.scalars[parser.index] {
                case "?": count = (0, 1)
                case "*": count = (0, nil)
                case "+": count = (1, nil)
                case "{":
                    guard let interval = Self.interval(&parser, end: end) else { return nil }
                    count = interval
                    parser.index -= 1
                default: parser.index -= 1
                }
                parser.index += 1
                if count != (1, 1) || parser.scalars[parser.index - 1] == "}", parser.index < end {
                    // `*?` (lazy) matches the same subjects; `*+` (possessive) does not.
                    if parser.scalars[parser.index] == "?" { parser.index += 1 }
                    else if parser.scalars[parser.index] == "+" { return nil }
                }
            }
            for _ in 0..<count.low { elements.append(Element(atom: atom, repeats: .once)) }
            if let high = count.high {
                for _ in count.low..<high { elements.append(Element(atom: atom, repeats: .optional)) }
            } else {
                elements.append(Element(atom: atom, repeats: .any))
            }
            guard elements.count <= Self.maximumElements else { return nil }
        }
        self.elements = elements
        var literal: [UInt8] = []
        for element in elements {
            guard element.repeats == .once, case let .byte(byte) = element.atom else { literal = []; break }
            literal.append(byte)
        }
        self.literal = literal.isEmpty ? nil : literal
        anchoredLiteralCount = anchoredStart ? elements.prefix { element in
            guard element.repeats == .once, case .byte = element.atom else { return false }
            return true
        }.count : 0
        let sets = elements.map { Self.acceptedBytes(of: $0.atom) }
        lowSets = sets.map(\.low)
        highSets = sets.map(\.high)
        var skippable: UInt64 = 0
        var repeating: UInt64 = 0
        for (index, element) in elements.enumerated() {
            if element.repeats != .once { skippable |= 1 << UInt64(index) }
            if element.repeats == .any { repeating |= 1 << UInt64(index) }
        }
        self.skippable = skippable
        self.repeating = repeating
    }

    /// The ASCII bytes `atom` accepts as ``GlobMatcher/Element/matches(_:_:original:)`` does: a
    /// byte, compared lowered (so both cases of a letter), any byte, or its set.
    private static func acceptedBytes(of atom: GlobMatcher.Element) -> (low: UInt64, high: UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for byte in UInt8(0)..<128 where GlobMatcher.Element.matches(atom, ASCIICase.lower(byte), original: byte) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }

    private static func atom(_ parser: inout GlobMatcher.Parser, end: Int) -> GlobMatcher.Element? {
        let scalar = parser.scalars[parser.index]
        switch scalar {
        case ".":
            parser.index += 1
            return .any
        case "[":
            parser.index += 1
            return parser.parseClass(end: end)
        case "\\":
            guard parser.index + 1 < end else { return nil }
            let escaped = parser.scalars[parser.index + 1]
            parser.index += 2
            if escaped == "d" { return .set(0x03FF_0000_0000_0000, 0) }
            return GlobMatcher.Parser.escapedLiteral(escaped).map { .byte(ASCIICase.lower($0)) }
        default:
            guard let byte = GlobMatcher.Parser.plainLiteral(scalar) else { return nil }
            parser.index += 1
            return .byte(ASCIICase.lower(byte))
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` (n ≤ m ≤ 63); nil for anything else.
    private static func interval(_ parser: inout GlobMatcher.Parser, end: Int) -> (Int, Int?)? {
        guard let close = parser.scalars[parser.index..<end].firstIndex(of: "}") else { return nil }
        let body = String(String.UnicodeScalarView(parser.scalars[(parser.index + 1)..<close]))
        parser.index = close + 1
        let parts = body.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        guard let low = Int(parts[0]), low <= maximumElements else { return nil }
        if parts.count == 1 { return (low, low) }
        if parts[1].isEmpty { return (low, nil) }
        guard let high = Int(parts[1]), high >= low, high <= maximumElements else { return nil }
        return (low, high)
    }

    /// Whether the expression is found in `subject`, or nil when `subject` is not plain ASCII
    /// (see ``GlobMatcher/matches(_:)``): then only ICU knows. Runs to the end, however long
    /// that takes (``matches(_:until:)`` stops at a deadline).
    public func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool? {
        var clock = SearchClock(deadline: nil)
        return matches(subject, clock: &clock).map { $0 == .matched }
    }

    /// ``matches(_:)``, stopped at `deadline`: ``MatchOutcome/outOfTime`` when it has passed
    /// while the automaton runs (the clock read every ``SearchClock/stepsPerRead`` state steps; a
    /// shorter search, and a literal's, finishes whatever the deadline, as a cheap ICU search
    /// does). One search is linear in the subject, but a tenant's mocks add up: 500 of them held
    /// a worker 0.45 s per 8 KiB request, past the request's slice and budget
    /// (docs/matching.md#evaluation-budget; tester finding tester30b-F5).
    public func matches(_ subject: UnsafeBufferPointer<UInt8>, until deadline: ContinuousClock.Instant) -> MatchOutcome? {
        var clock = SearchClock(deadline: deadline)
        return matches(subject, clock: &clock)
    }

    /// Subject bytes this automaton reads between two reads of the clock: state steps (bytes
    /// times elements) of ``SearchClock/stepsPerRead``.
    private var bytesPerClockRead: Int { max(1, SearchClock.stepsPerRead / max(1, elements.count)) }

    /// ``matches(_:until:)`` with the search's clock (its deadline), which afterwards tells how
    /// long a long search worked (``SearchClock``).
    func matches(_ subject: UnsafeBufferPointer<UInt8>, clock: inout SearchClock) -> MatchOutcome? {
        guard GlobMatcher.isPlainASCII(subject) else { return nil }
        if let literal {
            return ASCIICase.find(literal, in: subject, anchoredStart: anchoredStart, anchoredEnd: anchoredEnd) ? .matched : .notMatched
        }
        let accept: UInt64 = 1 << UInt64(elements.count)
        let start = closure(1)
        var states = start
        var rest = subject[...]
        if anchoredLiteralCount > 0 {
            // The automaton would walk states 0, 1, … through these: the same bytes compared directly.
            guard subject.count >= anchoredLiteralCount else { return .notMatched }
            for index in 0..<anchoredLiteralCount {
                guard case let .byte(expected) = elements[index].atom, expected == ASCIICase.lower(subject[index]) else { return .notMatched }
            }
            states = closure(1 << UInt64(anchoredLiteralCount))
            rest = subject[anchoredLiteralCount...]
        }
        if !anchoredEnd, states & accept != 0 { return .matched }
        let clockEvery = bytesPerClockRead
        var read = 0
        for byte in rest {
            read &+= 1
            if read % clockEvery == 0, clock.deadlinePassed() { return .outOfTime }
            var next: UInt64 = 0
            var remaining = states & ~accept
            while remaining != 0 {
                let i = remaining.trailingZeroBitCount
                remaining &= remaining - 1
                let accepted = byte < 64 ? lowSets[i] >> UInt64(byte) : highSets[i] >> UInt64(byte &- 64)
                guard accepted & 1 != 0 else { continue }
                let state: UInt64 = 1 << UInt64(i)
                next |= repeating & state != 0 ? state : state << 1
            }
            states = closure(next)
            if !anchoredStart { states |= start }
            if !anchoredEnd, states & accept != 0 { return .matched }
            if states == 0 { return .notMatched }
        }
        return states & accept != 0 ? .matched : .notMatched
    }

    /// `states` plus every state reachable by skipping optional and repeated elements.
    private func closure(_ states: UInt64) -> UInt64 {
        var states = states
        while true {
            let grown = states | (states & skippable) << 1
            if grown == states { return states }
            states = grown
        }
    }
}

extension SimpleRegexMatcher: ClockedMatcher {}
