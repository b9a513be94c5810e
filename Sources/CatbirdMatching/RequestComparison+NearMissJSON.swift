import CatbirdSupport
import CatbirdWire

// A 404's near miss written straight from a comparison (docs/matching.md#near-misses): the
// pattern's parts come written already (``NearMissTexts``), the request's method and target
// are escaped once per 404, and no ``CatbirdNearMiss`` or ``CatbirdNearMiss/Field`` is made.
// The bytes read back with `JSONDecoder` as that ``CatbirdNearMiss``, and the summary's bytes
// are its ``CatbirdNearMiss/summary(patternSummary:)`` escaped whole (tests compare).

/// Where a 404's request method and target were first written as JSON strings into its
/// ``ByteWriter``: the later near misses copy those bytes instead of escaping the texts again.
public struct NearMissRequestJSON {
    var method: Range<Int>?
    var target: Range<Int>?

    public init() {}
}

extension RequestComparison {
    /// Appends `{"distance":0.4,"fields":[…],"mockId":7,"pattern":{…},"position":1,"tenant":"s1"}`
    /// for a comparison made with its fields (``CompiledRequestPattern/compare(_:headerValue:body:urlMatches:urlEdits:until:slice:fields:)``).
    /// - Parameters:
    ///   - distance: the distance shown (rounded to 3 decimals, ``CatbirdNearMiss/writeDistance(_:to:)``).
    ///   - mockId, position, tenant: the mock's.
    ///   - requestJSON: where the request's method and target were written before, if they were.
    public func writeNearMissJSON(
        to out: inout ByteWriter, distance: Double, mockId: Int64, position: Int64, tenant: String,
        requestJSON: inout NearMissRequestJSON
    ) {
        guard let shown else { preconditionFailure("writeNearMissJSON: the comparison was made without its fields") }
        let texts = shown.texts
        out.append(#"{"distance":"#)
        CatbirdNearMiss.writeDistance(distance, to: &out)
        out.append(#","fields":[{"actual":"#)
        out.appendJSONString(shown.method, once: &requestJSON.method)
        out.append(UInt8(ascii: ","))
        texts.fieldPartsJSON.withUnsafeBufferPointer { parts in
            out.append(parts[0])
            Self.writeVerdict(shown.methodMatches ? .match : .differs, to: &out)
            out.append(#",{"actual":"#)
            out.appendJSONString(shown.target, once: &requestJSON.target)
            out.append(UInt8(ascii: ","))
            out.append(parts[1])
            Self.writeVerdict(shown.urlMatches ? .match : .differs, to: &out)
            for other in shown.others {
                out.append(",{")
                if let actual = other.actual {
                    out.append(#""actual":"#)
                    out.appendJSONString(actual)
                    out.append(UInt8(ascii: ","))
                }
                out.append(parts[2 + other.index])
                Self.writeVerdict(other.verdict, to: &out)
            }
        }
        out.append(#"],"mockId":"#)
        out.appendDecimal(mockId)
        if shown.omitted > 0 {
            out.append(#","omittedFields":"#)
            out.appendDecimal(Int64(shown.omitted))
        }
        out.append(#","pattern":"#)
        out.append(shown.patternJSON ?? texts.patternJSON)
        out.append(#","position":"#)
        out.appendDecimal(position)
        out.append(#","tenant":"#)
        out.appendJSONString(tenant)
        out.append(UInt8(ascii: "}"))
    }

    /// A field's verdict and the end of its object, after its pattern part.
    @inline(__always)
    private static func writeVerdict(_ verdict: CatbirdNearMiss.Field.Verdict, to out: inout ByteWriter) {
        switch verdict {
        case .match: out.append(#"match"}"#)
        case .differs: out.append(#"differs"}"#)
        case .missing: out.append(#"missing"}"#)
        case .skipped: out.append(#"skipped"}"#)
        }
    }

    /// Appends the one-line summary a 404's reason names the closest mock by, `mock 7 (POST equal
    /// "/api/users") of the default tenant: url differs (expected equal "/api/users", got
    /// "/api/usres")` (the fields that did not match joined by `; `), as it stands in the 404's
    /// body: escaped as the text of a JSON string, CR and LF as spaces (the bytes of
    /// ``CatbirdNearMiss/summary``'s text escaped whole). The pattern's texts come escaped
    /// (``NearMissTexts/InReason``); the request's values are quoted, escaped and, past 200
    /// bytes, cut here (``CatbirdNearMiss/writeMismatch(_:name:verdict:expected:actual:actualIsCut:first:escaped:to:)``).
    public func writeSummary(mockId: Int64, tenant: String, to out: inout ByteWriter) {
        guard let shown else { preconditionFailure("writeSummary: the comparison was made without its fields") }
        let texts = shown.texts.inReason
        CatbirdNearMiss.writeSummaryHead(
            mockId: mockId, patternSummary: shown.patternSummary.map(NearMissTexts.InReason.escaped) ?? texts.summary, tenant: tenant,
            escaped: true, to: &out)
        var first = true
        CatbirdNearMiss.writeMismatch(
            Self.methodField, name: nil, verdict: shown.methodMatches ? .match : .differs, expected: texts.method, actual: shown.method,
            first: &first, escaped: true, to: &out)
        CatbirdNearMiss.writeMismatch(
            Self.urlField, name: nil, verdict: shown.urlMatches ? .match : .differs, expected: texts.url, actual: shown.target, first: &first,
            escaped: true, to: &out)
        for other in shown.others {
            let index = other.index
            if index < texts.headerNames.count {
                CatbirdNearMiss.writeMismatch(
                    Self.headerField, name: texts.headerNames[index], verdict: other.verdict, expected: texts.headers[index],
                    actual: other.actual, first: &first, escaped: true, to: &out)
            } else {
                CatbirdNearMiss.writeMismatch(
                    Self.bodyField, name: nil, verdict: other.verdict, expected: texts.body!, actual: other.actual, actualIsCut: true,
                    first: &first, escaped: true, to: &out)
            }
        }
        if shown.omitted > 0 { CatbirdNearMiss.writeOmitted(shown.omitted, to: &out) }
        CatbirdNearMiss.writeNothingDiffers(if: first && shown.omitted == 0, to: &out)
    }

    /// The fields' names in a summary.
    private static let methodField = Array("method".utf8), urlField = Array("url".utf8), headerField = Array("header".utf8),
        bodyField = Array("body".utf8)
}
