import CatbirdSupport
import CatbirdWire
import Foundation

/// A ``BodyPattern`` checked and prepared once, when its mock is added (or a count, find or
/// wait arrives), then matched against many bodies. Rules: docs/matching.md#body-matchers.
///
/// - `equal`, `contains`: on the body's bytes and `value`'s UTF-8 bytes, case-sensitive;
///   `contains` in time linear in both lengths (``ByteSearch``); a body many `contains` patterns
///   read is indexed by pairs of bytes once and looked up (``BodyPairIndex``).
/// - `regexp`: like the url's `regexp` (``CompiledPatternMatch``): an unanchored,
///   case-insensitive ICU search, in the body read as UTF-8; a body that is not UTF-8 never matches.
/// - `json`: the body read as JSON equals `value` read as JSON (``ExactJSON`` equality: key
///   order and whitespace ignored, strings and keys compared exactly), both read by
///   ``JSONBodyParser``: `value` when the mock is added, the body once per request, in one pass.
/// - `jsonPath`: the field SQLite's JSON functions find (``JSONPathReader``), looked up in the
///   body parsed once per request as SQLite parses it (``JSONPathDocument``); it must be
///   present, and equal `equalTo` when that is given (``ExactJSON`` equality, as `json`).
public struct CompiledBodyPattern: Sendable {
    /// The pattern as it was received.
    public let source: BodyPattern
    private let matcher: Matcher

    /// A `json` pattern's value as read when the pattern was compiled; nil for other kinds.
    var jsonPatternValue: ExactJSON? {
        if case let .json(value) = matcher { return value }
        return nil
    }

    /// A `jsonPath` pattern's `equalTo` as it is compared; nil for none and for other kinds.
    var jsonPathEqualTo: ExactJSON? {
        if case let .jsonPath(_, equalTo) = matcher { return equalTo }
        return nil
    }

    private enum Matcher: Sendable {
        case equal([UInt8])
        case contains([UInt8])
        case regexp(CompiledPatternMatch)
        case json(ExactJSON)
        case jsonPath(String, ExactJSON?)
    }

    /// The ICU expression of a `regexp` (``CompiledPatternMatch/expression``); nil for the other kinds.
    var expression: ICUExpression? {
        guard case let .regexp(pattern) = matcher else { return nil }
        return pattern.expression
    }

    /// Checks and prepares `source`.
    /// - Throws: ``PatternError/invalidRegularExpression(pattern:reason:)`` for a bad `regexp`;
    ///   ``PatternError/invalidBodyPattern(reason:)`` for a `json` value that is not RFC 8259
    ///   JSON, a `jsonPath` malformed anywhere (``JSONPathSyntax``) or that SQLite does not
    ///   accept, or `equalTo` with a kind other than `jsonPath`.
    public init(_ source: BodyPattern) throws(PatternError) {
        try self.init(source, deferred: false)
    }

    /// `source` as stored with a mock: checked and prepared like ``init(_:)``, but a `regexp`
    /// is compiled at its first search (``CompiledPatternMatch/init(stored:)``), and the checks
    /// added since mocks were first stored are left out, so that every stored mock loads: a
    /// `jsonPath` is checked only as far as SQLite checks it (its first step), and a `json`
    /// value is read as it was then (``JSONBodyParser/storedPatternValue(of:)``).
    /// - Throws: as ``init(_:)``, but never for the regexp.
    public init(stored source: BodyPattern) throws(PatternError) {
        try self.init(source, deferred: true)
    }

    private init(_ source: BodyPattern, deferred: Bool) throws(PatternError) {
        self.source = source
        if source.equalTo != nil && source.kind != .jsonPath {
            throw .invalidBodyPattern(
                reason: "'pattern.body.equalTo' is only for the kind \"jsonPath\", not \"\(source.kind.rawValue)\"")
        }
        switch source.kind {
        case .equal: matcher = .equal(Array(source.value.utf8))
        case .contains: matcher = .contains(Array(source.value.utf8))
        case .regexp:
            matcher = .regexp(deferred ? CompiledPatternMatch(stored: .regexp(source.value)) : try CompiledPatternMatch(.regexp(source.value)))
        case .json:
            // A stored value is read as it was when stored (``JSONBodyParser/storedPatternValue(of:)``):
            // one stored with a trailing comma still loads.
            let bytes = Array(source.value.utf8)
            guard let value = deferred ? JSONBodyParser.storedPatternValue(of: bytes) : JSONBodyParser.value(of: bytes) else {
                if JSONNesting.tooDeep(bytes) { throw .invalidBodyPattern(reason: "'pattern.body.value' \(JSONNesting.reason)") }
                if !deferred, case let findings = JSONTextCheck.scan(bytes, as: .value), findings.syntaxError == nil,
                   findings.numberOutOfRange != nil {
                    // RFC 8259 text whose numbers a double cannot hold (1e400, §6 lets a reader
                    // limit their range): it is JSON, so the reason says what is out of range
                    // (tester finding T13-F7).
                    throw .invalidBodyPattern(
                        reason: "'pattern.body.value' is JSON text, but it holds a number out of the range this server compares "
                            + "(a 64-bit float, such as 1e400; RFC 8259 §6), so no body could be equal to it: write it as a string, "
                            + "or match the body with \"contains\" or \"regexp\"")
                }
                throw .invalidBodyPattern(
                    reason: "'pattern.body.value' must be JSON text for the kind \"json\" (such as \"{\\\"id\\\": 7}\"), not \(JSONText.string(source.value.utf8Prefix(100)))")
            }
            matcher = .json(value)
        case .jsonPath:
            // SQLite's check first (its reasons for `user.id`, `$..id`), then, for a new pattern,
            // the whole path (try10a F10); a stored one only as far as SQLite checks it.
            try JSONPathReader.validate(path: source.value)
            if !deferred, let (offset, problem) = JSONPathSyntax.fault(in: source.value) {
                throw .invalidBodyPattern(reason: JSONPathSyntax.reason(source.value, offset: offset, problem: problem))
            }
            matcher = .jsonPath(source.value, source.equalTo.map(ExactJSON.init))
        }
    }

    /// Whether a `regexp`'s expression waits to be compiled (``init(stored:)``): false then.
    public var isCompiled: Bool {
        guard case let .regexp(pattern) = matcher else { return true }
        return pattern.isCompiled
    }

    /// Compiles a stored `regexp`'s expression now (``CompiledPatternMatch/compile()``).
    /// - Returns: the UTF-8 bytes compiled now (0: nothing compiled).
    @discardableResult
    public func compile() -> Int {
        guard case let .regexp(pattern) = matcher else { return 0 }
        return pattern.compile()
    }

    /// Whether `body` (the request body's bytes, empty for none) matches. A regular expression
    /// still running after ``CompiledPatternMatch/defaultBudget`` counts as no match.
    public func matches(_ body: [UInt8]) -> Bool {
        evaluate(body, until: .now.advanced(by: CompiledPatternMatch.defaultBudget)) == .matched
    }

    /// Whether `body` (the request body's bytes, empty for none) matches, or
    /// ``MatchOutcome/outOfTime`` when a `regexp` was still running at `deadline`: the deadline
    /// of the whole request's evaluation budget, shared with its url and header patterns
    /// (docs/matching.md#evaluation-budget). `slice`: as for ``CompiledPatternMatch/evaluate(_:until:slice:)``.
    ///
    /// Within a ``RequestBodyScope`` for `body`, what it reads of the body is read once for the
    /// whole request (``RequestBodyReading``), and a pass over the body it may not start (over
    /// 64 KiB within a slice, or past `deadline`) is ``MatchOutcome/outOfTime``.
    public func evaluate(_ body: [UInt8], until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole) -> MatchOutcome {
        guard let reading = RequestBodyScope.reading(of: body) else { return evaluateUnread(body, until: deadline, slice: slice) }
        do throws(RequestBodyReading.Refused) {
            switch matcher {
            case let .equal(bytes):
                guard body.count == bytes.count else { return .notMatched }
                try reading.admit(until: deadline, slice: slice)
                return body == bytes ? .matched : .notMatched
            case let .contains(bytes):
                return try reading.contains(bytes, until: deadline, slice: slice) ? .matched : .notMatched
            case let .regexp(pattern):
                guard let text = try reading.utf8Text(until: deadline, slice: slice) else { return .notMatched }
                try reading.admit(until: deadline, slice: slice)
                return pattern.evaluate(text, until: deadline, slice: slice)
            case let .json(value):
                return try reading.jsonValue(until: deadline, slice: slice) == value ? .matched : .notMatched
            case let .jsonPath(path, equalTo):
                guard case let .present(found) = try reading.field(at: path, until: deadline, slice: slice) else { return .notMatched }
                return equalTo.map { $0 == found } ?? true ? .matched : .notMatched
            }
        } catch {
            return .outOfTime
        }
    }

    /// ``evaluate(_:until:slice:)`` outside a scope: the body read for this pattern alone.
    private func evaluateUnread(_ body: [UInt8], until deadline: ContinuousClock.Instant, slice: RegexpSlice) -> MatchOutcome {
        switch matcher {
        case let .equal(bytes):
            return body == bytes ? .matched : .notMatched
        case let .contains(bytes):
            return ByteSearch.contains(bytes, in: body) ? .matched : .notMatched
        case let .regexp(pattern):
            guard let text = String(validating: body, as: UTF8.self) else { return .notMatched }
            return pattern.evaluate(text, until: deadline, slice: slice)
        case let .json(value):
            return JSONBodyParser.value(of: body) == value ? .matched : .notMatched
        case let .jsonPath(path, equalTo):
            guard String(validating: body, as: UTF8.self) != nil, var document = JSONPathDocument(body),
                case let .present(found) = document.field(at: path)
            else { return .notMatched }
            return equalTo.map { $0 == found } ?? true ? .matched : .notMatched
        }
    }
}
