import CatbirdSupport
import CatbirdWire

/// How far a request is from a pattern it did not match, field by field: the near-miss
/// distance of docs/matching.md#near-misses.
///
/// | field | when it matches | when it does not |
/// |---|---|---|
/// | method | 0 | 1 |
/// | url | 0 | 0.25 + 0.75 × the edit distance between the pattern's value and the request-target, over the longer length (UTF-8 bytes, each cut to 128) |
/// | each header | 0 | 0.5 (differs or missing) |
/// | body (patterns with one) | 0 | 0.5 |
public struct RequestComparison: Sendable {
    /// The sum of the fields' distances; 0 when the request matches.
    public let distance: Double
    /// Whether a header or body regular expression was stopped at the deadline, or not started
    /// within a slice, and so counted as differing: the comparison then depends on timing, not
    /// only on the request and the pattern.
    public let cutShort: Bool
    /// What the fields show, when asked for (``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``'s
    /// `fields`); nil when not.
    let shown: Shown?

    /// Whether the pattern's method and url both match the request (a comparison made with its
    /// fields; false without them): the body is then what it differs in, if anything, besides
    /// headers.
    public var methodAndURLMatch: Bool { shown.map { $0.methodMatches && $0.urlMatches } ?? false }

    /// The fields of a comparison asked for them, kept as verdicts and the request's values
    /// beside the pattern's texts: what the 404 writes (``writeNearMissJSON(to:distance:mockId:position:tenant:requestJSON:)``)
    /// with no ``CatbirdNearMiss/Field`` made.
    ///
    /// A class: a 404 copies each closest mock's comparison several times on its way to the
    /// body and the reason (into the report, then for each writer called across modules), and a
    /// copy of this as a struct retained and released each of its texts and arrays; now one
    /// reference. Sendable: final, and every stored property is an immutable Sendable value.
    final class Shown: Sendable {
        let texts: NearMissTexts
        let method: String
        let target: String
        let methodMatches: Bool
        let urlMatches: Bool
        /// The header patterns' and the body's fields listed (at most
        /// ``CompiledRequestPattern/shownFieldLimit`` minus 2, ``CompiledRequestPattern/listed(_:)``):
        /// each one's place among the pattern's headers (``CompiledRequestPattern/headers``'s
        /// count for the body), verdict and the request's value (nil: missing). Empty for a
        /// pattern with neither (no array made).
        let others: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)]
        /// How many of the pattern's header and body fields are not listed (all of them match
        /// when fewer than the limit differ).
        let omitted: Int
        /// The `pattern` written when fields are left out: the pattern with only the headers
        /// listed; nil: ``NearMissTexts/patternJSON``.
        let patternJSON: [UInt8]?
        /// That pattern's ``RequestPattern/summary`` (the reason names the mock by it); nil:
        /// ``NearMissTexts/summary``.
        let patternSummary: String?

        init(
            texts: NearMissTexts, method: String, target: String, methodMatches: Bool, urlMatches: Bool,
            others: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)], omitted: Int, patternJSON: [UInt8]?,
            patternSummary: String?
        ) {
            self.texts = texts
            self.method = method
            self.target = target
            self.methodMatches = methodMatches
            self.urlMatches = urlMatches
            self.others = others
            self.omitted = omitted
            self.patternJSON = patternJSON
            self.patternSummary = patternSummary
        }
    }
}

extension CompiledRequestPattern {
    /// Bytes of a url compared by the edit distance at most: 128.
    public static let comparedURLLength = 128
    /// UTF-8 bytes of a body or pattern value shown in a near miss at most: 200
    /// (``CatbirdWire/CatbirdNearMiss/shownValueBytes``, which cuts a url or header value in the reason).
    public static let shownBodyLength = CatbirdNearMiss.shownValueBytes
    /// Fields a near miss lists at most: 20 (method and url, then up to 18 header and body
    /// fields, those that did not match first). A mock with thousands of header patterns would
    /// otherwise make every 404 near it megabytes long (docs/matching.md#near-misses).
    public static let shownFieldLimit = 20

    /// The header and body fields a near miss lists (``shownFieldLimit`` minus method and url):
    /// chosen among those that did not match first, then among those that did, and listed in
    /// the pattern's order; and how many are left out.
    static func listed(
        _ fields: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)]
    ) -> (listed: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)], omitted: Int) {
        let room = shownFieldLimit - 2
        guard fields.count > room else { return (fields, 0) }
        var listed = fields.filter { $0.verdict != .match }.prefix(room)
        if listed.count < room { listed += fields.lazy.filter { $0.verdict == .match }.prefix(room - listed.count) }
        return (listed.sorted { $0.index < $1.index }, fields.count - listed.count)
    }

    /// The url field's distance when the url pattern does not match: 0.25 + 0.75 × `edits` /
    /// `longer` (0.25 when both texts are empty).
    @inlinable @inline(__always)
    public static func urlDistance(edits: Int, longer: Int) -> Double {
        longer == 0 ? 0.25 : 0.25 + 0.75 * Double(edits) / Double(longer)
    }

    /// Whether the url pattern matches the probe's target (a regular expression still running
    /// at `deadline` counts as not matching; `slice`: as for ``CompiledPatternMatch/evaluate(_:until:slice:)``).
    public func urlMatches(_ probe: NearMissProbe, until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole) -> Bool {
        urlOutcome(probe, until: deadline, slice: slice) == .matched
    }

    /// ``urlMatches(_:until:slice:)``, telling a regular expression stopped at `deadline` (or not
    /// started within a slice) apart: ``MatchOutcome/outOfTime``.
    public func urlOutcome(_ probe: NearMissProbe, until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole) -> MatchOutcome {
        url.evaluate(probe.target, until: deadline, slice: slice)
    }

    /// Compares a request with this pattern field by field (``RequestComparison``), evaluating
    /// every field, unlike ``matches(method:target:headerValue:body:)``: for unmatched requests
    /// only. The distance is summed in field order (method, url, headers, body), so a bound
    /// from the method and the url alone (``NearMissProbe/methodDistanceBound(_:)`` plus
    /// ``NearMissProbe/urlDistanceBound(classes:shortest:)``) never exceeds it.
    /// - Parameters:
    ///   - urlMatches: ``urlMatches(_:until:)`` of the probe (false when an index proved it).
    ///   - urlEdits: the edit distance between the probe's url and ``comparedURL`` when the
    ///     caller has computed it already (``EditDistanceProbe/distance(to:)``); nil: computed
    ///     here when the url does not match.
    ///   - deadline: regular expressions of header and body patterns still running then count
    ///     as differing.
    ///   - slice: the deadline is a worker's slice (``CompiledPatternMatch/evaluate(_:until:slice:)``).
    ///   - fields: whether to keep what the fields show (the verdicts and the request's values a
    ///     404's near miss is written from, ``RequestComparison/writeNearMissJSON(to:distance:mockId:position:tenant:requestJSON:)``;
    ///     only the closest mocks need them).
    public func compare(
        _ probe: NearMissProbe, headerValue: (String) -> String?, body: [UInt8], urlMatches: Bool, urlEdits: Int? = nil,
        until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole, fields wanted: Bool
    ) -> RequestComparison {
        var distance = 0.0
        let methodMatches = probe.method == source.method.rawValue
        if !methodMatches { distance += 1 }

        if !urlMatches {
            let longer = max(comparedURL.count, probe.url.bytes.count)
            distance += Self.urlDistance(edits: urlEdits ?? probe.url.distance(to: comparedURL), longer: longer)
        }

        var cutShort = false
        var others: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)] = []
        if wanted && (!headers.isEmpty || self.body != nil) { others.reserveCapacity(headers.count + 1) }
        for header in headers {
            let value = headerValue(header.name)
            let verdict: CatbirdNearMiss.Field.Verdict
            if let value {
                let outcome = header.pattern.evaluate(value, until: deadline, slice: slice)
                if outcome == .outOfTime { cutShort = true }
                verdict = Self.verdict(outcome)
            } else {
                verdict = .missing
            }
            if verdict != .match { distance += 0.5 }
            if wanted { others.append((others.count, verdict, value)) }
        }

        if let bodyPattern = self.body {
            let outcome = bodyPattern.evaluate(body, until: deadline, slice: slice)
            if outcome == .outOfTime { cutShort = true }
            let bodyMatches = outcome == .matched
            if !bodyMatches { distance += 0.5 }
            if wanted { others.append((headers.count, Self.verdict(outcome), Self.shown(body))) }
        }
        // A method, not a closure called in place: the closure's context held a copy of the
        // whole pattern (`source`'s texts retained and released), made for every comparison,
        // the ranking's without fields included (about 120 instructions and a dozen reference
        // counts per mock compared, counted with callgrind).
        let shown = wanted ? shown(probe, methodMatches: methodMatches, urlMatches: urlMatches, others: others) : nil
        return RequestComparison(distance: distance, cutShort: cutShort, shown: shown)
    }

    /// What a comparison with fields shows (``compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``):
    /// the fields listed (``listed(_:)``) and, when some are left out, the pattern as shown with
    /// only the listed headers.
    private func shown(
        _ probe: NearMissProbe, methodMatches: Bool, urlMatches: Bool,
        others: [(index: Int, verdict: CatbirdNearMiss.Field.Verdict, actual: String?)]
    ) -> RequestComparison.Shown {
        let (listed, omitted) = Self.listed(others)
        var patternJSON: [UInt8]?
        var patternSummary: String?
        if omitted > 0 {
            var shortened = source
            shortened.headers = Dictionary(uniqueKeysWithValues: listed.lazy.filter { $0.index < headers.count }.map {
                let name = nearMissTexts.headerNames[$0.index]
                return (name, source.headers[name]!)
            })
            var json: [UInt8] = []
            shortened.writeJSON(to: &json)
            patternJSON = json
            patternSummary = shortened.summary
        }
        return RequestComparison.Shown(
            texts: nearMissTexts, method: probe.method, target: probe.target, methodMatches: methodMatches,
            urlMatches: urlMatches, others: listed, omitted: omitted, patternJSON: patternJSON,
            patternSummary: patternSummary)
    }

    /// The comparison ``compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)`` made
    /// without fields (its `distance`, the url's verdict `urlMatches`), with what its fields
    /// show, when this pattern has neither header nor body patterns: its method and url are all
    /// there is to show, so nothing is compared again. Nil for a pattern with either (the ranking
    /// keeps no verdicts per compared mock, which would cost an array each): compare it again
    /// with `fields`.
    public func fieldsWithoutComparing(distance: Double, _ probe: NearMissProbe, urlMatches: Bool) -> RequestComparison? {
        guard headers.isEmpty, body == nil else { return nil }
        // Only header and body regular expressions cut a comparison short.
        return RequestComparison(distance: distance, cutShort: false, shown: RequestComparison.Shown(
            texts: nearMissTexts, method: probe.method, target: probe.target, methodMatches: probe.method == source.method.rawValue,
            urlMatches: urlMatches, others: [], omitted: 0, patternJSON: nil, patternSummary: nil))
    }

    /// A header's or body's verdict: `skipped` when its regexp ran out of the evaluation budget.
    private static func verdict(_ outcome: MatchOutcome) -> CatbirdNearMiss.Field.Verdict {
        switch outcome {
        case .matched: .match
        case .notMatched: .differs
        case .outOfTime: .skipped
        }
    }

    /// The body as text for a person: cut after ``shownBodyLength`` UTF-8 bytes, at a scalar
    /// boundary (`… (N bytes)`), or `<N bytes, not UTF-8>`.
    static func shown(_ body: [UInt8]) -> String {
        guard let text = String(validating: body, as: UTF8.self) else { return "<\(body.count) bytes, not UTF-8>" }
        return JSONText.cutWithLength(text, maxBytes: shownBodyLength)
    }
}
