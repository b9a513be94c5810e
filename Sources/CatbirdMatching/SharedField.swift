import CatbirdWire

/// A header or body field that every one of several request patterns has (docs/matching.md#near-misses):
/// a request found once to differ from it differs from each of those patterns by that field's
/// 0.5 of the near-miss distance (``RequestComparison``), so a lower bound of all their distances
/// may count it without comparing each pattern.
///
/// A header field is its name as the patterns spell it, with the header pattern when all of them
/// have the same one (else only the name: a request without that header differs from each, one
/// with it may match some); the body field is a body pattern all of them have alike.
public struct SharedField: Sendable {
    /// What tells shared fields apart (a catalog keeps each once).
    public enum Key: Hashable, Sendable {
        case header(name: String, pattern: PatternMatch?)
        case body(BodyPattern)
    }

    public private(set) var key: Key
    /// For a header field: one of the patterns' header (name and compiled pattern).
    private let header: CompiledHeaderPattern?
    /// For the body field: one of the patterns' body pattern.
    private let body: CompiledBodyPattern?

    /// Whether a request certainly differs in this field from every pattern that has it:
    /// ``MatchOutcome/notMatched`` when the header is missing, or when the shared pattern does
    /// not match; ``MatchOutcome/matched`` when it may match (the pattern matched, or the
    /// patterns differ and the header is present); ``MatchOutcome/outOfTime`` when a regular
    /// expression was stopped (`deadline`, `slice`: as for ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``,
    /// which counts such a field as differing too).
    public func outcome(
        headerValue: (String) -> String?, body requestBody: [UInt8], until deadline: ContinuousClock.Instant, slice: RegexpSlice
    ) -> MatchOutcome {
        if let header {
            guard let value = headerValue(header.name) else { return .notMatched }
            guard case .header(_, .some) = key else { return .matched }
            return header.pattern.evaluate(value, until: deadline, slice: slice)
        }
        guard let body else { return .matched }
        return body.evaluate(requestBody, until: deadline, slice: slice)
    }

    /// Keeps the fields `pattern` also has: a header field it has with another pattern keeps
    /// only its name; the others are dropped.
    mutating func keepShared(with pattern: CompiledRequestPattern) -> Bool {
        switch key {
        case let .header(name, shared):
            guard let own = pattern.source.headers[name] else { return false }
            if let shared, shared != own { key = .header(name: name, pattern: nil) }
            return true
        case let .body(shared):
            return pattern.source.body == shared
        }
    }

    /// Keeps what this field and `other` (of another set of patterns) have in common; false
    /// when nothing.
    mutating func keepShared(with other: SharedField) -> Bool {
        switch (key, other.key) {
        case let (.header(name, shared), .header(otherName, otherShared)) where name == otherName:
            if shared != nil, shared != otherShared { key = .header(name: name, pattern: nil) }
            return true
        case let (.body(shared), .body(otherShared)):
            return shared == otherShared
        default:
            return false
        }
    }

    init(header: CompiledHeaderPattern, pattern: PatternMatch) {
        key = .header(name: header.name, pattern: pattern)
        self.header = header
        body = nil
    }

    init(body: CompiledBodyPattern) {
        key = .body(body.source)
        header = nil
        self.body = body
    }
}

extension CompiledRequestPattern {
    /// The header and body fields all of `patterns` have (``SharedField``): at most `limit`,
    /// from the first pattern's first `limit` header names (in name order) and its body.
    /// Empty for no patterns.
    public static func sharedFields(of patterns: some Sequence<CompiledRequestPattern>, limit: Int) -> [SharedField] {
        var iterator = patterns.makeIterator()
        guard let first = iterator.next() else { return [] }
        var fields = first.headers.prefix(limit).map { SharedField(header: $0, pattern: first.source.headers[$0.name]!) }
        if let body = first.body, fields.count < limit { fields.append(SharedField(body: body)) }
        while !fields.isEmpty, let next = iterator.next() {
            fields = fields.compactMap { field in
                var kept = field
                return kept.keepShared(with: next) ? kept : nil
            }
        }
        return fields
    }

    /// The fields every set of `sets` shares (each set the ``sharedFields(of:limit:)`` of some
    /// patterns): those of all of them at once. Empty for no sets.
    public static func sharedFields(among sets: some Sequence<[SharedField]>) -> [SharedField] {
        var iterator = sets.makeIterator()
        guard var fields = iterator.next() else { return [] }
        while !fields.isEmpty, let next = iterator.next() {
            fields = fields.compactMap { field in
                for other in next {
                    var kept = field
                    if kept.keepShared(with: other) { return kept }
                }
                return nil
            }
        }
        return fields
    }
}
