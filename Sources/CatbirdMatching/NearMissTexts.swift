import CatbirdWire

/// What a near miss shows of one pattern, written once when the pattern is compiled (a mock is
/// added) instead of on every unmatched request that ranks its mock among the closest
/// (docs/matching.md#near-misses): the fields' `expected` texts, the one-line summary the 404's
/// `reason` names it by, and the pattern's JSON.
///
/// A class, so that copies of a ``CompiledRequestPattern`` (a ``Mock`` is copied on every hit)
/// share one reference instead of retaining each text.
public final class NearMissTexts: Sendable {
    /// The method field's `expected`: the pattern's method, `GET`.
    let method: String
    /// The url field's `expected`: `equal "/api/users"`.
    public let url: String
    /// Each header pattern's name as the pattern spells it, in the order of ``CompiledRequestPattern/headers``.
    let headerNames: [String]
    /// Each header pattern's `expected`, in the order of ``CompiledRequestPattern/headers``.
    let headers: [String]
    /// The body field's `expected` (``BodyPattern/summary``); nil without a body pattern.
    let body: String?
    /// ``RequestPattern/summary``: `GET equal "/api/users"`.
    public let summary: String
    /// The pattern as the near miss's `pattern` member: ``RequestPattern/writeJSON(to:)``'s bytes.
    public let patternJSON: [UInt8]
    /// Each field's JSON part that depends on the pattern only
    /// (``CatbirdNearMiss/Field/patternPartJSON(field:name:expected:)``), in the order of the
    /// fields ``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:fields:)``
    /// builds: method, url, each header, the body.
    public let fieldPartsJSON: [[UInt8]]

    /// - Parameter pattern: the mock's pattern; its long values are shown cut
    ///   (``RequestPattern/shownInNearMisses``).
    init(_ pattern: RequestPattern, headerNames: [String]) {
        let source = pattern.shownInNearMisses
        method = source.method.rawValue
        url = source.url.summary
        self.headerNames = headerNames
        headers = headerNames.map { source.headers[$0]!.summary }
        body = source.body?.summary
        summary = source.summary
        var json: [UInt8] = []
        source.writeJSON(to: &json)
        patternJSON = json
        fieldPartsJSON = [
            CatbirdNearMiss.Field.patternPartJSON(field: "method", name: nil, expected: source.method.rawValue),
            CatbirdNearMiss.Field.patternPartJSON(field: "url", name: nil, expected: url),
        ] + zip(headerNames, headers).map { CatbirdNearMiss.Field.patternPartJSON(field: "header", name: $0, expected: $1) }
            + (body.map { [CatbirdNearMiss.Field.patternPartJSON(field: "body", name: nil, expected: $0)] } ?? [])
    }
}
