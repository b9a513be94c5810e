import CatbirdSupport

// The near misses' wire shapes written by hand into one byte buffer: every unmatched request's
// 404 body and journal entry carry them, and `JSONEncoder` cost more than the rest of a miss.
// The texts are the `Codable` shapes (keys sorted, as the server's encoder writes them); the
// tests decode them back with `JSONDecoder` and compare.

extension Array where Element == UInt8 {
    fileprivate mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    fileprivate mutating func appendJSON(_ string: String) {
        JSONText.appendString(string, to: &self)
    }

    /// `{"equalTo":…,"kind":…,"value":…}` (pattern matches and body patterns; keys sorted),
    /// `equalTo` (JSON text) only when given.
    fileprivate mutating func appendKindObject(_ kind: String, value: String, equalTo: String? = nil) {
        append("{")
        if let equalTo {
            append(#""equalTo":"#)
            append(contentsOf: equalTo.utf8)
            append(",")
        }
        append(#""kind":"#)
        appendJSON(kind)
        append(#","value":"#)
        appendJSON(value)
        append("}")
    }

    fileprivate mutating func appendDecimal(_ number: Int64) {
        JSONText.appendDecimal(number, to: &self)
    }
}

extension PatternMatch {
    /// Appends `{"kind":"equal","value":"/api/users"}`.
    public func writeJSON(to out: inout [UInt8]) {
        out.appendKindObject(kind.rawValue, value: value)
    }
}

extension BodyPattern {
    /// Appends `{"equalTo":7,"kind":"jsonPath","value":"$.id"}`; `equalTo` only when set.
    public func writeJSON(to out: inout [UInt8]) {
        out.appendKindObject(kind.rawValue, value: value, equalTo: equalTo?.jsonText)
    }
}

extension RequestPattern {
    /// Appends `{"body":…,"headers":{…},"method":"GET","url":{…}}`: `headers` always, `body`
    /// only when set (``encode(to:)``'s shape).
    public func writeJSON(to out: inout [UInt8]) {
        out.append("{")
        if let body {
            out.append(#""body":"#)
            body.writeJSON(to: &out)
            out.append(",")
        }
        out.append(#""headers":{"#)
        for (index, header) in headers.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(",") }
            out.appendJSON(header.key)
            out.append(":")
            header.value.writeJSON(to: &out)
        }
        out.append(#"},"method":"#)
        out.appendJSON(method.rawValue)
        out.append(#","url":"#)
        url.writeJSON(to: &out)
        out.append("}")
    }
}

extension CatbirdNearMiss.Field {
    /// Appends `{"actual":"/api/usres","expected":"equal \"/api/users\"","field":"url","verdict":"differs"}`:
    /// `actual` and `name` only when set.
    public func writeJSON(to out: inout [UInt8]) {
        out.append("{")
        if let actual {
            out.append(#""actual":"#)
            out.appendJSON(actual)
            out.append(",")
        }
        out.append(contentsOf: Self.patternPartJSON(field: field, name: name, expected: expected))
        switch verdict {
        case .match: out.append(#"match"}"#)
        case .differs: out.append(#"differs"}"#)
        case .missing: out.append(#"missing"}"#)
        case .skipped: out.append(#"skipped"}"#)
        }
    }

    /// The part of a field's JSON that depends on the pattern only, between `actual` and the
    /// verdict's value: `"expected":"equal \"/api/users\"","field":"url","verdict":"` (with
    /// `"name":…` before `"verdict"` for a header). The server writes it once per pattern.
    public static func patternPartJSON(field: String, name: String?, expected: String) -> [UInt8] {
        var out: [UInt8] = []
        out.append(#""expected":"#)
        out.appendJSON(expected)
        out.append(#","field":"#)
        out.appendJSON(field)
        if let name {
            out.append(#","name":"#)
            out.appendJSON(name)
        }
        out.append(#","verdict":""#)
        return out
    }
}

extension CatbirdNearMiss {
    /// Appends `{"distance":0.4,"fields":[…],"mockId":7,"pattern":{…},"position":1,"tenant":"s1"}`;
    /// `patternJSON`, when given, is ``pattern``'s ``RequestPattern/writeJSON(to:)`` written
    /// before (once per mock).
    public func writeJSON(to out: inout [UInt8], patternJSON: [UInt8]? = nil) {
        out.append(#"{"distance":"#)
        Self.writeDistance(distance, to: &out)
        out.append(#","fields":["#)
        for index in fields.indices {
            if index > 0 { out.append(",") }
            fields[index].writeJSON(to: &out)
        }
        out.append(#"],"mockId":"#)
        out.appendDecimal(mockId)
        if let omittedFields {
            out.append(#","omittedFields":"#)
            out.appendDecimal(Int64(omittedFields))
        }
        out.append(#","pattern":"#)
        if let patternJSON { out.append(contentsOf: patternJSON) } else { pattern.writeJSON(to: &out) }
        out.append(#","position":"#)
        out.appendDecimal(position)
        out.append(#","tenant":"#)
        out.appendJSON(tenant)
        out.append("}")
    }

    /// Appends near misses as a JSON array (the journal's `near_misses` column); `patternJSON`,
    /// when given, holds each one's pattern JSON (``writeJSON(to:patternJSON:)``).
    public static func writeJSON(_ nearMisses: [CatbirdNearMiss], patternJSON: [[UInt8]]? = nil, to out: inout [UInt8]) {
        out.append("[")
        for (index, nearMiss) in nearMisses.enumerated() {
            if index > 0 { out.append(",") }
            nearMiss.writeJSON(to: &out, patternJSON: patternJSON?[index])
        }
        out.append("]")
    }

    /// A distance as a JSON number: to 3 decimals (as the server rounds it), with no trailing
    /// zeros (`0.4`, `1.4`, `1`); other finite values as Swift prints them.
    public static func writeDistance(_ distance: Double, to out: inout [UInt8]) {
        var writer = ByteWriter(capacity: 32)
        writeDistance(distance, to: &writer)
        writer.withBytes { out.append(contentsOf: $0) }
    }

    /// ``writeDistance(_:to:)-([UInt8])`` into a ``ByteWriter`` (the 404's near misses).
    public static func writeDistance(_ distance: Double, to out: inout ByteWriter) {
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
    /// Appends ``summary(patternSummary:)``'s text as UTF-8: `mock 7 (POST equal "/api/users")
    /// of the default tenant: url differs (expected equal "/api/users", got "/api/usres")`.
    public func writeSummary(patternSummary: String, to out: inout [UInt8]) {
        var writer = ByteWriter(capacity: patternSummary.utf8.count + 160)
        Self.writeSummaryHead(mockId: mockId, patternSummary: patternSummary, tenant: tenant, to: &writer)
        var first = true
        for field in fields {
            Self.writeMismatch(
                field.field, name: field.name, verdict: field.verdict, expected: field.expected, actual: field.actual, first: &first,
                to: &writer)
        }
        if let omittedFields { Self.writeOmitted(omittedFields, to: &writer) }
        writer.withBytes { out.append(contentsOf: $0) }
    }

    /// The end of a near miss's summary when fields were left out: `; 1980 more fields not listed`.
    public static func writeOmitted(_ count: Int, to out: inout ByteWriter) {
        out.append("; ")
        out.appendDecimal(Int64(count))
        out.append(" more fields not listed")
    }

    /// The start of a near miss's summary: `mock 7 (POST equal "/api/users") of the default
    /// tenant: `, or `of tenant "s1": ` (the id cut, ``JSONText/shortString(_:maxBytes:)``).
    public static func writeSummaryHead(mockId: Int64, patternSummary: String, tenant: String, to out: inout ByteWriter) {
        out.append("mock ")
        out.appendDecimal(mockId)
        out.append(" (")
        out.append(utf8: patternSummary)
        if tenant.isEmpty {
            out.append(") of the default tenant: ")
        } else {
            out.append(") of tenant ")
            JSONText.appendShortString(tenant, to: &out)
            out.append(": ")
        }
    }

    /// One field of a near miss's summary, unless it matched: `header X-Token missing
    /// (expected equal "t", got none)`, `body not evaluated (expected regexp "(.*a){20}", got
    /// "aaa…")` for a skipped one, after `; ` unless it is the `first` written.
    public static func writeMismatch(
        _ field: String, name: String?, verdict: Field.Verdict, expected: String, actual: String?, first: inout Bool,
        to out: inout ByteWriter
    ) {
        guard verdict != .match else { return }
        if !first { out.append("; ") }
        first = false
        out.append(utf8: field)
        if let name {
            out.append(UInt8(ascii: " "))
            out.append(utf8: name)
        }
        switch verdict {
        case .missing: out.append(" missing (expected ")
        case .skipped: out.append(" not evaluated (expected ")
        case .match, .differs: out.append(" differs (expected ")
        }
        out.append(utf8: expected)
        out.append(", got ")
        if let actual { out.appendJSONString(actual) } else { out.append("none") }
        out.append(UInt8(ascii: ")"))
    }
}

extension CatbirdNotFoundBody {
    /// The 404 body as bytes, with `nearMisses` given as its JSON text
    /// (``CatbirdNearMiss/writeJSON(_:patternJSON:to:)``); `matchingTenants` only when set.
    public func json(nearMissesJSON: some Collection<UInt8>) -> [UInt8] {
        jsonLocatingNearMisses(nearMissesJSON).bytes
    }

    /// ``json(nearMissesJSON:)``, and where in it the `nearMisses` array is: those bytes are
    /// `nearMissesJSON`, so the journal stores their place rather than a second copy
    /// (docs/schema.md, `near_misses`).
    public func jsonLocatingNearMisses(_ nearMissesJSON: some Collection<UInt8>) -> (bytes: [UInt8], nearMisses: Range<Int>) {
        var out: [UInt8] = []
        out.reserveCapacity(nearMissesJSON.count + reason.utf8.count + tenant.utf8.count + 64)
        out.append(error ? #"{"error":true,"# : #"{"error":false,"#)
        if let matchingTenants {
            out.append(#""matchingTenants":["#)
            for (index, tenant) in matchingTenants.enumerated() {
                if index > 0 { out.append(",") }
                out.appendJSON(tenant)
            }
            out.append("],")
        }
        out.append(#""nearMisses":"#)
        let start = out.count
        out.append(contentsOf: nearMissesJSON)
        let nearMisses = start..<out.count
        out.append(#","reason":"#)
        out.appendJSON(reason)
        out.append(#","tenant":"#)
        out.appendJSON(tenant)
        out.append("}")
        return (out, nearMisses)
    }
}
