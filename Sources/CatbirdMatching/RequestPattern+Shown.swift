import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// This pattern as a near miss shows it (docs/matching.md#near-misses): its `pattern`
    /// member, its fields' `expected` texts and the 404's `reason`. A url, header or body value
    /// longer than ``CompiledRequestPattern/shownBodyLength`` (200) UTF-8 bytes is cut to its
    /// first 200 (at a Unicode scalar boundary), followed by `… (N bytes)` with its length in UTF-8 bytes, as a request body is. A mock
    /// whose body pattern holds a 4 MB upload made every miss near it a 16 MB 404 with an
    /// 8-million-character reason and an 8 MB journal row (try7b F12). The pattern itself, and
    /// what it matches, are unchanged; a `jsonPath`'s `equalTo` is shown whole. Every reason
    /// that names a pattern shows it so (a wait's 408, a warning naming an earlier mock: tester
    /// finding tester48b-F1, a 9 KB body pattern filled the 408's 8,000 bytes and left out what
    /// did arrive).
    public var shownInNearMisses: RequestPattern {
        guard Self.needsCut(url.value) || headers.values.contains(where: { Self.needsCut($0.value) })
            || body.map({ Self.needsCut($0.value) }) == true
        else { return self }
        return RequestPattern(
            method: method, url: PatternMatch(kind: url.kind, value: Self.shown(url.value)),
            headers: headers.mapValues { PatternMatch(kind: $0.kind, value: Self.shown($0.value)) },
            body: body.map { BodyPattern(kind: $0.kind, value: Self.shown($0.value), equalTo: $0.equalTo) })
    }

    /// Whether `value` has more bytes than a near miss shows.
    private static func needsCut(_ value: String) -> Bool {
        value.utf8.count > CompiledRequestPattern.shownBodyLength
    }

    /// `value` cut as ``shownInNearMisses`` says, or whole.
    private static func shown(_ value: String) -> String {
        JSONText.cutWithLength(value, maxBytes: CompiledRequestPattern.shownBodyLength)
    }
}
