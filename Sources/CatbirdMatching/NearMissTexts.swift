import CatbirdSupport
import CatbirdWire

/// What a near miss shows of one pattern, written once when the pattern is compiled (a mock is
/// added) instead of on every unmatched request that ranks its mock among the closest
/// (docs/matching.md#near-misses): the fields' `expected` texts and the one-line summary the
/// 404's `reason` names it by, escaped as the reason holds them, and the pattern's JSON.
///
/// A class, so that copies of a ``CompiledRequestPattern`` (a ``Mock`` is copied on every hit)
/// share one reference instead of retaining each text.
public final class NearMissTexts: Sendable {
    /// Each header pattern's name as the pattern spells it, in the order of ``CompiledRequestPattern/headers``.
    let headerNames: [String]
    /// The texts the 404's `reason` names this pattern by, as they stand in the body: each
    /// escaped as the text of a JSON string, CR and LF as spaces
    /// (``CatbirdSupport/ByteWriter/appendJSONStringContent(_:lineBreaksAsSpaces:nested:)``), so
    /// that a miss copies them rather than escaping them again
    /// (``RequestComparison/writeSummary(mockId:tenant:to:)``).
    struct InReason: Sendable {
        /// The method field's `expected`: the pattern's method, `GET`.
        let method: [UInt8]
        /// The url field's `expected`: `equal \"/api/users\"`.
        let url: [UInt8]
        /// Each header pattern's name, in the order of ``CompiledRequestPattern/headers``.
        let headerNames: [[UInt8]]
        /// Each header pattern's `expected`, in the same order.
        let headers: [[UInt8]]
        /// The body field's `expected` (``BodyPattern/summary``); nil without a body pattern.
        let body: [UInt8]?
        /// ``RequestPattern/summary``: `GET equal \"/api/users\"`.
        let summary: [UInt8]

        /// `text` escaped as the reason holds it.
        static func escaped(_ text: String) -> [UInt8] {
            var out = ByteWriter(capacity: text.utf8.count + 8)
            out.appendJSONStringContent(text, lineBreaksAsSpaces: true)
            return out.bytes()
        }
    }
    /// The texts as the reason holds them.
    let inReason: InReason
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
        let url = source.url.summary
        let shownNames = headerNames.map(RequestPattern.shown)
        let headers = shownNames.map { source.headers[$0]!.summary }
        let body = source.body?.summary
        self.headerNames = headerNames
        inReason = InReason(
            method: InReason.escaped(source.method.rawValue), url: InReason.escaped(url), headerNames: shownNames.map(InReason.escaped),
            headers: headers.map(InReason.escaped), body: body.map(InReason.escaped), summary: InReason.escaped(source.summary))
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
