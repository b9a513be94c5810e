import CatbirdSupport
import CatbirdWire

extension RequestPattern {
    /// This pattern as a near miss shows it (docs/matching.md#near-misses): its `pattern`
    /// member, its fields' `expected` texts and the 404's `reason`. A url, header or body value,
    /// or a header name, longer than ``CompiledRequestPattern/shownBodyLength`` (200) UTF-8 bytes is cut to its
    /// first 200 (at a Unicode scalar boundary), followed by `… (N bytes)` with its length in UTF-8 bytes, as a request body is. A mock
    /// whose body pattern holds a 4 MB upload made every miss near it a 16 MB 404 with an
    /// 8-million-character reason and an 8 MB journal row (try7b F12). The pattern itself, and
    /// what it matches, are unchanged; a `jsonPath`'s `equalTo` is shown whole. Every reason
    /// that names a pattern shows it so (a wait's 408, a warning naming an earlier mock: tester
    /// finding tester48b-F1, a 9 KB body pattern filled the 408's 8,000 bytes and left out what
    /// did arrive).
    public var shownInNearMisses: RequestPattern {
        guard Self.needsCut(url.value) || headers.contains(where: { Self.needsCut($0.key) || Self.needsCut($0.value.value) })
            || body.map({ Self.needsCut($0.value) }) == true
        else { return self }
        // Header names are cut too (tester finding tester49a-F2: four 3,000-byte names filled a
        // 404's reason); two cut alike show as one.
        return RequestPattern(
            method: method, url: PatternMatch(kind: url.kind, value: Self.shown(url.value)),
            headers: Dictionary(headers.map { (Self.shown($0.key), PatternMatch(kind: $0.value.kind, value: Self.shown($0.value.value))) },
                                uniquingKeysWith: { first, _ in first }),
            body: body.map { BodyPattern(kind: $0.kind, value: Self.shown($0.value), equalTo: $0.equalTo) })
    }

    /// Whether `value` has more bytes than a near miss shows.
    private static func needsCut(_ value: String) -> Bool {
        value.utf8.count > CompiledRequestPattern.shownBodyLength
    }

    /// `value` (or a header name: the key it has in ``shownInNearMisses``) cut as that says,
    /// or whole.
    static func shown(_ value: String) -> String {
        JSONText.cutWithLength(value, maxBytes: CompiledRequestPattern.shownBodyLength)
    }
}
