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
    /// Method, url, each header (by name), then the body; empty when not asked for.
    public let fields: [CatbirdNearMiss.Field]
    /// Whether a header or body regular expression was stopped at the deadline, or not started
    /// within a slice, and so counted as differing: the comparison then depends on timing, not
    /// only on the request and the pattern.
    public let cutShort: Bool
}

extension CompiledRequestPattern {
    /// Bytes of a url compared by the edit distance at most: 128.
    public static let comparedURLLength = 128
    /// Characters of a body shown as a near miss's `actual` at most: 200.
    public static let shownBodyLength = 200

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
    ///   - fields: whether to build ``RequestComparison/fields`` (the texts a person reads; only
    ///     the closest mocks need them).
    public func compare(
        _ probe: NearMissProbe, headerValue: (String) -> String?, body: [UInt8], urlMatches: Bool, urlEdits: Int? = nil,
        until deadline: ContinuousClock.Instant, slice: RegexpSlice = .whole, fields wanted: Bool
    ) -> RequestComparison {
        let texts = nearMissTexts
        var fields: [CatbirdNearMiss.Field] = []
        if wanted { fields.reserveCapacity(2 + headers.count + (self.body == nil ? 0 : 1)) }
        var distance = 0.0
        let methodMatches = probe.method == source.method.rawValue
        if !methodMatches { distance += 1 }
        if wanted {
            fields.append(.init(
                field: "method", verdict: methodMatches ? .match : .differs, expected: source.method.rawValue, actual: probe.method))
        }

        if !urlMatches {
            let longer = max(comparedURL.count, probe.url.bytes.count)
            distance += Self.urlDistance(edits: urlEdits ?? probe.url.distance(to: comparedURL), longer: longer)
        }
        if wanted {
            fields.append(.init(field: "url", verdict: urlMatches ? .match : .differs, expected: texts.url, actual: probe.target))
        }

        var cutShort = false
        for (index, header) in headers.enumerated() {
            let value = headerValue(header.name)
            let verdict: CatbirdNearMiss.Field.Verdict
            if let value {
                let outcome = header.pattern.evaluate(value, until: deadline, slice: slice)
                if outcome == .outOfTime { cutShort = true }
                verdict = outcome == .matched ? .match : .differs
            } else {
                verdict = .missing
            }
            if verdict != .match { distance += 0.5 }
            if wanted {
                fields.append(.init(field: "header", name: header.name, verdict: verdict, expected: texts.headers[index], actual: value))
            }
        }

        if let bodyPattern = self.body {
            let outcome = bodyPattern.evaluate(body, until: deadline, slice: slice)
            if outcome == .outOfTime { cutShort = true }
            let bodyMatches = outcome == .matched
            if !bodyMatches { distance += 0.5 }
            if wanted {
                fields.append(.init(field: "body", verdict: bodyMatches ? .match : .differs, expected: texts.body!, actual: Self.shown(body)))
            }
        }
        return RequestComparison(distance: distance, fields: fields, cutShort: cutShort)
    }

    /// The body as text for a person: cut after ``shownBodyLength`` characters (`… (N bytes)`),
    /// or `<N bytes, not UTF-8>`.
    static func shown(_ body: [UInt8]) -> String {
        guard let text = String(validating: body, as: UTF8.self) else { return "<\(body.count) bytes, not UTF-8>" }
        guard text.count > shownBodyLength else { return text }
        return "\(text.prefix(shownBodyLength))… (\(body.count) bytes)"
    }
}
