import CatbirdWire

/// How far a request is from a pattern it did not match, field by field: the near-miss
/// distance of docs/matching.md#near-misses.
///
/// | field | when it matches | when it does not |
/// |---|---|---|
/// | method | 0 | 1 |
/// | url | 0 | 0.25 + 0.75 × the edit distance between the pattern's value and the request-target, over the longer length (each cut to 128 characters) |
/// | each header | 0 | 0.5 (differs or missing) |
/// | body (patterns with one) | 0 | 0.5 |
public struct RequestComparison: Sendable {
    /// The sum of the fields' distances; 0 when the request matches.
    public let distance: Double
    /// Method, url, each header (by name), then the body.
    public let fields: [CatbirdNearMiss.Field]
}

extension CompiledRequestPattern {
    /// Characters of a url compared by the edit distance at most: 128.
    public static let comparedURLLength = 128
    /// Characters of a body shown as a near miss's `actual` at most: 200.
    public static let shownBodyLength = 200

    /// Compares a request with this pattern field by field (``RequestComparison``). Evaluates
    /// every field, unlike ``matches(method:target:headerValue:body:)``: for unmatched
    /// requests only.
    public func compare(method: String, target: String, headerValue: (String) -> String?, body: [UInt8]) -> RequestComparison {
        var fields: [CatbirdNearMiss.Field] = []
        var distance = 0.0
        let methodMatches = method == source.method.rawValue
        if !methodMatches { distance += 1 }
        fields.append(.init(
            field: "method", verdict: methodMatches ? .match : .differs, expected: source.method.rawValue, actual: method))

        let urlMatches = url.matches(target)
        if !urlMatches { distance += 0.25 + 0.75 * Self.editRatio(source.url.value, target) }
        fields.append(.init(field: "url", verdict: urlMatches ? .match : .differs, expected: Self.summary(source.url), actual: target))

        for header in headers {
            let value = headerValue(header.name)
            let verdict: CatbirdNearMiss.Field.Verdict = value == nil ? .missing : header.pattern.matches(value!) ? .match : .differs
            if verdict != .match { distance += 0.5 }
            fields.append(.init(
                field: "header", name: header.name, verdict: verdict, expected: Self.summary(header.pattern.source), actual: value))
        }

        if let bodyPattern = self.body {
            let bodyMatches = bodyPattern.matches(body)
            if !bodyMatches { distance += 0.5 }
            fields.append(.init(
                field: "body", verdict: bodyMatches ? .match : .differs, expected: bodyPattern.source.summary,
                actual: Self.shown(body)))
        }
        return RequestComparison(distance: distance, fields: fields)
    }

    /// `equal "/api/users"`.
    static func summary(_ pattern: PatternMatch) -> String {
        "\(pattern.kind.rawValue) \(JSONValue.string(pattern.value).jsonText)"
    }

    /// The body as text for a person: cut after ``shownBodyLength`` characters (`… (N bytes)`),
    /// or `<N bytes, not UTF-8>`.
    static func shown(_ body: [UInt8]) -> String {
        guard let text = String(validating: body, as: UTF8.self) else { return "<\(body.count) bytes, not UTF-8>" }
        guard text.count > shownBodyLength else { return text }
        return "\(text.prefix(shownBodyLength))… (\(body.count) bytes)"
    }

    /// The Levenshtein distance between `a` and `b` (each cut to ``comparedURLLength``
    /// Unicode scalars) over the longer one's length: 0 for equal texts, 1 for nothing in common.
    static func editRatio(_ a: String, _ b: String) -> Double {
        let left = Array(a.unicodeScalars.prefix(comparedURLLength))
        let right = Array(b.unicodeScalars.prefix(comparedURLLength))
        let longer = max(left.count, right.count)
        guard longer > 0 else { return 0 }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...max(left.count, 1) where !left.isEmpty {
            current[0] = i
            for j in stride(from: 1, through: right.count, by: 1) {
                let substitution = previous[j - 1] + (left[i - 1] == right[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return Double(previous[right.count]) / Double(longer)
    }
}
