import CatbirdSupport

// The near misses' wire shapes written by hand into one ``ByteWriter``: every unmatched
// request's 404 body and journal entry carry them, and `JSONEncoder` cost more than the rest of
// a miss. The texts are the `Codable` shapes (keys sorted, as the server's encoder writes them).
// The near misses themselves are written from a comparison (CatbirdMatching's
// `RequestComparison.writeNearMissJSON`); here are the parts that depend on a pattern only,
// written once per mock, and the summary's pieces.

extension ByteWriter {
    /// `{"equalTo":…,"kind":…,"value":…}` (pattern matches and body patterns; keys sorted),
    /// `equalTo` (JSON text) only when given.
    fileprivate mutating func appendKindObject(_ kind: String, value: String, equalTo: String? = nil) {
        append("{")
        if let equalTo {
            append(#""equalTo":"#)
            append(utf8: equalTo)
            append(",")
        }
        append(#""kind":"#)
        appendJSONString(kind)
        append(#","value":"#)
        appendJSONString(value)
        append("}")
    }
}

extension PatternMatch {
    /// Appends `{"kind":"equal","value":"/api/users"}`.
    package func writeJSON(to out: inout ByteWriter) {
        out.appendKindObject(kind.rawValue, value: value)
    }
}

extension BodyPattern {
    /// Appends `{"equalTo":7,"kind":"jsonPath","value":"$.id"}`; `equalTo` only when set.
    package func writeJSON(to out: inout ByteWriter) {
        out.appendKindObject(kind.rawValue, value: value, equalTo: equalTo?.jsonText)
    }
}

extension RequestPattern {
    /// Appends `{"body":…,"headers":{…},"method":"GET","url":{…}}`: `headers` always, `body`
    /// only when set (``encode(to:)``'s shape). A near miss's `pattern` member, written once
    /// per mock.
    package func writeJSON(to out: inout [UInt8]) {
        var writer = ByteWriter(capacity: 96)
        writeJSON(to: &writer)
        writer.withBytes { out.append(contentsOf: $0) }
    }

    /// ``writeJSON(to:)-([UInt8])`` into a ``ByteWriter``.
    package func writeJSON(to out: inout ByteWriter) {
        out.append("{")
        if let body {
            out.append(#""body":"#)
            body.writeJSON(to: &out)
            out.append(",")
        }
        out.append(#""headers":{"#)
        for (index, header) in headers.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(",") }
            out.appendJSONString(header.key)
            out.append(":")
            header.value.writeJSON(to: &out)
        }
        out.append(#"},"method":"#)
        out.appendJSONString(method.rawValue)
        out.append(#","url":"#)
        url.writeJSON(to: &out)
        out.append("}")
    }
}

extension CatbirdNearMiss.Field {
    /// The part of a field's JSON that depends on the pattern only, between `actual` and the
    /// verdict's value: `"expected":"equal \"/api/users\"","field":"url","verdict":"` (with
    /// `"name":…` before `"verdict"` for a header). The server writes it once per pattern.
    package static func patternPartJSON(field: String, name: String?, expected: String) -> [UInt8] {
        var out = ByteWriter(capacity: expected.utf8.count + field.utf8.count + (name?.utf8.count ?? 0) + 48)
        out.append(#""expected":"#)
        out.appendJSONString(expected)
        out.append(#","field":"#)
        out.appendJSONString(field)
        if let name {
            out.append(#","name":"#)
            out.appendJSONString(name)
        }
        out.append(#","verdict":""#)
        return out.bytes()
    }
}

extension CatbirdNearMiss {
    /// A distance as a JSON number: to 3 decimals (as the server rounds it), with no trailing
    /// zeros (`0.4`, `1.4`, `1`); other finite values as Swift prints them.
    package static func writeDistance(_ distance: Double, to out: inout ByteWriter) {
        let thousandths = (distance * 1000).rounded()
        guard thousandths >= 0, thousandths < 1e15, thousandths / 1000 == distance else {
            out.append(utf8: JSONValue.number(distance).jsonText)
            return
        }
        let whole = Int64(thousandths)
        out.appendDecimal(whole / 1000)
        let fraction = Int(whole % 1000)
        guard fraction > 0 else { return }
        // Three digits, trailing zeros dropped: 400 → ".4", 5 → ".005".
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        guard fraction % 100 > 0 else { return }
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        guard fraction % 10 > 0 else { return }
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}

extension CatbirdNearMiss {
    /// UTF-8 bytes of a long value a near miss shows at most, then `… (N bytes)`
    /// (``CatbirdSupport/JSONText/cutWithLength(_:maxBytes:)``): 200. A request body's `actual`
    /// and a pattern's values everywhere; a url's or header's `actual` in the summary (the
    /// 404's `reason`), while its field keeps it whole (docs/matching.md#near-misses).
    package static let shownValueBytes = 200

    /// Appends ``summary(patternSummary:)``'s text: `mock 7 (POST equal "/api/users") of the
    /// default tenant: url differs (expected equal "/api/users", got "/api/usres")`.
    package func writeSummary(patternSummary: String, to out: inout ByteWriter) {
        Self.writeSummaryHead(mockId: mockId, patternSummary: Array(patternSummary.utf8), tenant: tenant, escaped: false, to: &out)
        var first = true
        for field in fields {
            Self.writeMismatch(
                Array(field.field.utf8), name: field.name.map { Array($0.utf8) }, verdict: field.verdict, expected: Array(field.expected.utf8),
                actual: field.actual, actualIsCut: field.field == "body", first: &first, escaped: false, to: &out)
        }
        if let omittedFields { Self.writeOmitted(omittedFields, to: &out) }
        Self.writeNothingDiffers(if: first && omittedFields == nil, to: &out)
    }

    /// The end of a near miss's summary that named no field (`first` still true): `every field
    /// compared matches this request`. The mock was skipped while matching (its evaluation
    /// budget spent), which a later clause of the 404 names; an empty list read as a bug
    /// (tester finding tester30c-F2).
    package static func writeNothingDiffers(if first: Bool, to out: inout ByteWriter) {
        if first { out.append("every field compared matches this request") }
    }

    /// The end of a near miss's summary when fields were left out: `; 1980 more fields not listed`
    /// (nothing to escape).
    package static func writeOmitted(_ count: Int, to out: inout ByteWriter) {
        out.append("; ")
        out.appendDecimal(Int64(count))
        out.append(" more fields not listed")
    }

    /// The start of a near miss's summary: `mock 7 (POST equal "/api/users") of the default
    /// tenant: `, or `of tenant "s1": ` (the id cut, ``JSONText/shortString(_:maxBytes:)``).
    /// `escaped`: written as the text of a JSON string, CR and LF as spaces (a 404's `reason`
    /// inside its body, whose bytes are then the plain text's escaped whole): `patternSummary`
    /// comes so, and the tenant is quoted and escaped here. Else as plain UTF-8 text.
    package static func writeSummaryHead(mockId: Int64, patternSummary: [UInt8], tenant: String, escaped: Bool, to out: inout ByteWriter) {
        out.append("mock ")
        out.appendDecimal(mockId)
        out.append(" (")
        out.append(patternSummary)
        if tenant.isEmpty {
            out.append(") of the default tenant: ")
        } else {
            out.append(") of tenant ")
            JSONText.appendShortString(tenant, nested: escaped, to: &out)
            out.append(": ")
        }
    }

    /// One field of a near miss's summary, unless it matched: `header X-Token missing
    /// (expected equal "t", got none)`, `body not evaluated (expected regexp "(.*a){20}", got
    /// "aaa…")` for a skipped one, after `; ` unless it is the `first` written. `field`, `name`
    /// and `expected` come as they are written; `actual` is quoted (and, `escaped`, escaped
    /// again) here, as in ``writeSummaryHead(mockId:patternSummary:tenant:escaped:to:)``, and
    /// cut after ``shownValueBytes`` (`got "/uuuu…… (8000 bytes)"`: a url or header value, which
    /// its field keeps whole, made the reason grow with the request; tester finding T19B-F15)
    /// unless `actualIsCut` (a body's comes cut so). A value within the bound is written as it is.
    package static func writeMismatch(
        _ field: [UInt8], name: [UInt8]?, verdict: Field.Verdict, expected: [UInt8], actual: String?, actualIsCut: Bool = false,
        first: inout Bool, escaped: Bool, to out: inout ByteWriter
    ) {
        guard verdict != .match else { return }
        if !first { out.append("; ") }
        first = false
        out.append(field)
        if let name {
            out.append(UInt8(ascii: " "))
            out.append(name)
        }
        switch verdict {
        case .missing: out.append(" missing (expected ")
        case .skipped: out.append(" not evaluated (expected ")
        case .match, .differs: out.append(" differs (expected ")
        }
        out.append(expected)
        out.append(", got ")
        if let actual {
            let shown = actualIsCut ? actual : JSONText.cutWithLength(actual, maxBytes: shownValueBytes)
            if escaped { out.appendNestedJSONString(shown) } else { out.appendJSONString(shown) }
        } else {
            out.append("none")
        }
        out.append(UInt8(ascii: ")"))
    }
}
