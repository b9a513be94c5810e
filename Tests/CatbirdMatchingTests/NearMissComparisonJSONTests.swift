import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation
import XCTest

/// The 404's near misses written straight from a comparison into a ``ByteWriter``
/// (``RequestComparison/writeNearMissJSON(to:distance:mockId:position:tenant:requestJSON:)``,
/// ``RequestComparison/writeSummary(mockId:tenant:to:)``): for fixed cases, the exact JSON and
/// summary written by hand here; for random patterns and requests with odd texts (quotes,
/// backslashes, control bytes, non-ASCII), JSON that `JSONDecoder` reads back as the
/// ``CatbirdNearMiss`` whose verdicts this test works out itself, each field through the
/// matcher alone (``CompiledRequestPattern/matches(method:target:headerValue:body:)`` of a
/// pattern with that one field), not from the comparison; the request's method and target
/// escaped once and copied into the later near misses.
final class NearMissComparisonJSONTests: XCTestCase {
    private let odd = ["plain", "quote \" backslash \\", "newline \n tab \t nul \u{0} \u{1F}", "é 🐈 </script>", ""]
    private let deadline = ContinuousClock.now.advanced(by: .seconds(60))

    /// `pattern` compared with a request, written as one near miss (mock 7 at position 2).
    private func written(
        _ pattern: RequestPattern, method: String, target: String, headers: [String: String] = [:], body: String = "",
        tenant: String = "s1"
    ) throws -> (json: String, summary: String) {
        let compiled = try CompiledRequestPattern(pattern)
        let probe = NearMissProbe(method: method, target: target)
        let comparison = compiled.compare(
            probe, headerValue: { name in headers.first { $0.key.lowercased() == name.lowercased() }?.value }, body: Array(body.utf8),
            urlMatches: compiled.urlMatches(probe, until: deadline), until: deadline, fields: true)
        var json = ByteWriter(capacity: 16)
        var requestJSON = NearMissRequestJSON()
        comparison.writeNearMissJSON(
            to: &json, distance: (comparison.distance * 1000).rounded() / 1000, mockId: 7, position: 2, tenant: tenant,
            requestJSON: &requestJSON)
        return (String(decoding: json.bytes(), as: UTF8.self), try summary(of: comparison, mockId: 7, tenant: tenant))
    }

    /// `comparison`'s summary as the 404's reason holds it (``RequestComparison/writeSummary(mockId:tenant:to:)``:
    /// escaped as the text of a JSON string), read back as text (CR and LF read as spaces).
    private func summary(of comparison: RequestComparison, mockId: Int64, tenant: String) throws -> String {
        let escaped = summaryBytes(of: comparison, mockId: mockId, tenant: tenant)
        return try JSONDecoder().decode(String.self, from: Data(Array(#"""#.utf8) + escaped + Array(#"""#.utf8)))
    }

    private func summaryBytes(of comparison: RequestComparison, mockId: Int64, tenant: String) -> [UInt8] {
        var escaped = ByteWriter(capacity: 16)
        comparison.writeSummary(mockId: mockId, tenant: tenant, to: &escaped)
        return escaped.bytes()
    }

    /// `text` escaped whole as the text of a JSON string, CR and LF as spaces (the reason's bytes
    /// before it was written in pieces).
    private func escapedWhole(_ text: String) -> [UInt8] {
        var whole = ByteWriter(capacity: 16)
        Array(text.utf8).withUnsafeBufferPointer { whole.appendJSONString($0, lineBreaksAsSpaces: true) }
        return Array(whole.bytes().dropFirst().dropLast())
    }

    func testAMethodUrlAndHeaderThatDifferAreWrittenAsDiffering() throws {
        let near = try written(
            RequestPattern(method: "GET", url: PatternMatch.equal("/api/users"), headers: ["X-Token": PatternMatch.equal("abc")]),
            method: "POST", target: "/api/usres", headers: ["x-token": "abd"])
        // method 1 + url 0.25 + 0.75 × 2/10 + header 0.5
        XCTAssertEqual(
            near.json,
            [
                #"{"distance":1.9,"fields":[{"actual":"POST","expected":"GET","field":"method","verdict":"differs"},"#,
                #"{"actual":"/api/usres","expected":"equal \"/api/users\"","field":"url","verdict":"differs"},"#,
                #"{"actual":"abd","expected":"equal \"abc\"","field":"header","name":"X-Token","verdict":"differs"}],"#,
                #""mockId":7,"pattern":{"headers":{"X-Token":{"kind":"equal","value":"abc"}},"method":"GET","#,
                #""url":{"kind":"equal","value":"/api/users"}},"position":2,"tenant":"s1"}"#,
            ].joined())
        XCTAssertEqual(
            near.summary,
            [
                #"mock 7 (GET equal "/api/users" X-Token: equal "abc") of tenant "s1": method differs (expected GET, got "POST"); "#,
                #"url differs (expected equal "/api/users", got "/api/usres"); header X-Token differs (expected equal "abc", got "abd")"#,
            ].joined())
    }

    func testAMissingHeaderHasNoActualAndMatchingFieldsAreNotInTheSummary() throws {
        let near = try written(
            RequestPattern(method: "POST", url: PatternMatch.wildcard("/w/*"), headers: ["Accept": PatternMatch.regexp("^b.$")], body: .contains("x\"y")),
            method: "POST", target: "/w/q", body: "a\"b\n", tenant: "")
        XCTAssertEqual(
            near.json,
            [
                #"{"distance":1,"fields":[{"actual":"POST","expected":"POST","field":"method","verdict":"match"},"#,
                #"{"actual":"/w/q","expected":"wildcard \"/w/*\"","field":"url","verdict":"match"},"#,
                #"{"expected":"regexp \"^b.$\"","field":"header","name":"Accept","verdict":"missing"},"#,
                #"{"actual":"a\"b\n","expected":"contains \"x\\\"y\"","field":"body","verdict":"differs"}],"#,
                #""mockId":7,"pattern":{"body":{"kind":"contains","value":"x\"y"},"headers":{"Accept":{"kind":"regexp","value":"^b.$"}},"#,
                #""method":"POST","url":{"kind":"wildcard","value":"/w/*"}},"position":2,"tenant":""}"#,
            ].joined())
        XCTAssertEqual(
            near.summary,
            [
                #"mock 7 (POST wildcard "/w/*" Accept: regexp "^b.$" body contains "x\"y") of the default tenant: header Accept missing (expected regexp "^b.$", got none); "#,
                #"body differs (expected contains "x\"y", got "a\"b\n")"#,
            ].joined())
    }

    /// Tester finding T19B-F15: the summary quoted a url or header value whole (an 8,000-byte url
    /// gave an 8,401-byte reason). It cuts them after 200 bytes as it does a body (which comes
    /// cut, and is not cut again); the JSON's `actual` keeps them whole, and the client's
    /// ``CatbirdNearMiss/summary`` of that JSON writes the same bytes.
    func testALongURLOrHeaderValueIsCutInTheSummaryOnly() throws {
        let target = "/" + String(repeating: "u", count: 8_000)
        let value = String(repeating: "v", count: 20_000)
        let body = String(repeating: "b", count: 300)
        let near = try written(
            RequestPattern(method: "POST", url: PatternMatch.equal("/dflt"), headers: ["X-Long": PatternMatch.equal("abc")], body: .equal("x")),
            method: "POST", target: target, headers: ["X-Long": value], body: body)
        XCTAssertEqual(
            near.summary,
            #"mock 7 (POST equal "/dflt" X-Long: equal "abc" body equal "x") of tenant "s1": "#
                + #"url differs (expected equal "/dflt", got "/\#(String(repeating: "u", count: 199))… (8001 bytes)"); "#
                + #"header X-Long differs (expected equal "abc", got "\#(String(repeating: "v", count: 200))… (20000 bytes)"); "#
                + #"body differs (expected equal "x", got "\#(String(repeating: "b", count: 200))… (300 bytes)")"#)
        let decoded = try JSONDecoder().decode(CatbirdNearMiss.self, from: Data(near.json.utf8))
        XCTAssertEqual(decoded.fields.first { $0.field == "url" }?.actual, target)
        XCTAssertEqual(decoded.fields.first { $0.field == "header" }?.actual, value)
        XCTAssertEqual(decoded.summary, near.summary)
    }

    func testEveryFieldMatchingIsWrittenAsMatching() throws {
        let near = try written(
            RequestPattern(method: "PUT", url: PatternMatch.regexp("^/r/[a-z]+$"), headers: ["Accept": PatternMatch.wildcard("a*")], body: .jsonPath("$.id", equalTo: 7)),
            method: "PUT", target: "/r/abc", headers: ["ACCEPT": "ab"], body: #"{"id":7}"#, tenant: "q\"t")
        XCTAssertEqual(
            near.json,
            [
                #"{"distance":0,"fields":[{"actual":"PUT","expected":"PUT","field":"method","verdict":"match"},"#,
                #"{"actual":"/r/abc","expected":"regexp \"^/r/[a-z]+$\"","field":"url","verdict":"match"},"#,
                #"{"actual":"ab","expected":"wildcard \"a*\"","field":"header","name":"Accept","verdict":"match"},"#,
                #"{"actual":"{\"id\":7}","expected":"jsonPath \"$.id\" equalTo 7","field":"body","verdict":"match"}],"#,
                #""mockId":7,"pattern":{"body":{"equalTo":7,"kind":"jsonPath","value":"$.id"},"headers":{"Accept":{"kind":"wildcard","value":"a*"}},"#,
                #""method":"PUT","url":{"kind":"regexp","value":"^/r/[a-z]+$"}},"position":2,"tenant":"q\"t"}"#,
            ].joined())
        // Nothing differs (a mock skipped for its budget while matching): said, not left empty (tester30c-F2).
        XCTAssertEqual(
            near.summary,
            #"mock 7 (PUT regexp "^/r/[a-z]+$" Accept: wildcard "a*" body jsonPath "$.id" equalTo 7) of tenant "q\"t": every field compared matches this request"#)
    }

    /// The verdict of one field as matching alone gives it: a pattern of that field only (the
    /// request's method, and its target as an `equal` url, for the others) matches the request.
    private func matchesAlone(
        _ method: String, _ target: String, url: PatternMatch? = nil, header: (String, PatternMatch)? = nil, body: BodyPattern? = nil,
        values: [String: String], requestBody: [UInt8]
    ) throws -> CatbirdNearMiss.Field.Verdict {
        let alone = try CompiledRequestPattern(RequestPattern(
            method: RequestPattern.HTTPMethod(rawValue: method), url: url ?? .equal(target), headers: header.map { [$0.0: $0.1] } ?? [:], body: body))
        let found = alone.matches(
            method: method, target: target, headerValue: { name in values.first { $0.key.lowercased() == name.lowercased() }?.value },
            body: requestBody)
        return found ? .match : .differs
    }

    func testComparisonWritesTheVerdictsTheMatcherGivesEachFieldAlone() throws {
        var random = RandomPatterns(seed: 43)
        for round in 0..<200 {
            let method = random.pick(["GET", "POST", "we\"ird"])
            let target = random.pick(["/api/plain", "/w/x", "/r/abc", "/\(random.pick(odd))?q=\"1\"", "/a\r\nb"])
            let probe = NearMissProbe(method: method, target: target)
            let requestBody = Array(random.pick(odd + [#"{"id":7}"#]).utf8) + (random.chance(10) ? [0xFF] : [])
            let shownBody = String(validating: requestBody, as: UTF8.self) ?? "<\(requestBody.count) bytes, not UTF-8>"
            // Up to three near misses of one 404: the method and target JSON are written by the first.
            var written = ByteWriter(capacity: 64)
            var requestJSON = NearMissRequestJSON()
            var expected: [CatbirdNearMiss] = []
            for index in 0..<(1 + random.below(3)) {
                var headers: [String: PatternMatch] = [:]
                for _ in 0..<random.below(4) {
                    headers[random.pick(["X-Token", "Accept", "x-odd\"name", "Ünïcode"])] =
                        random.pick([PatternMatch.equal(random.pick(odd)), .wildcard("a*"), .regexp("^b.$")])
                }
                let url = random.pick([PatternMatch.equal("/api/\(random.pick(odd))"), .wildcard("/w/*"), .regexp("^/r/[a-z]+$")])
                let body: BodyPattern? = random.chance(40) ? random.pick([.contains(random.pick(odd)), .jsonPath("$.id", equalTo: 7)]) : nil
                let source = RequestPattern(method: random.pick(["GET", "POST", "PROPFIND", "M\"X"]), url: url, headers: headers, body: body)
                let pattern = try CompiledRequestPattern(source)
                let values = headers.keys.reduce(into: [String: String]()) { values, name in
                    if random.chance(70) { values[name] = random.pick(odd + ["a1", "bc"]) }
                }
                let comparison = pattern.compare(
                    probe, headerValue: { name in values.first { $0.key.lowercased() == name.lowercased() }?.value }, body: requestBody,
                    urlMatches: pattern.urlMatches(probe, until: deadline), until: deadline, fields: true)
                let distance = (comparison.distance * 1000).rounded() / 1000
                let (mockId, position, tenant) = (Int64(round) * 7_919 - 3 + Int64(index), Int64(round + index), random.pick(odd + ["s1"]))

                var fields: [CatbirdNearMiss.Field] = [
                    .init(field: "method", verdict: method == source.method.rawValue ? .match : .differs, expected: source.method.rawValue, actual: method),
                    .init(field: "url", verdict: try matchesAlone(method, target, url: url, values: values, requestBody: requestBody),
                          expected: url.summary, actual: target),
                ]
                for (name, header) in headers.sorted(by: { $0.key < $1.key }) {
                    let verdict = values[name] == nil
                        ? .missing : try matchesAlone(method, target, header: (name, header), values: values, requestBody: requestBody)
                    fields.append(.init(field: "header", name: name, verdict: verdict, expected: header.summary, actual: values[name]))
                }
                if let body {
                    fields.append(.init(
                        field: "body", verdict: try matchesAlone(method, target, body: body, values: values, requestBody: requestBody),
                        expected: body.summary, actual: shownBody))
                }
                let nearMiss = CatbirdNearMiss(mockId: mockId, tenant: tenant, position: position, distance: distance, pattern: source, fields: fields)
                expected.append(nearMiss)

                if index > 0 { written.append(UInt8(ascii: ",")) }
                comparison.writeNearMissJSON(
                    to: &written, distance: distance, mockId: mockId, position: position, tenant: tenant, requestJSON: &requestJSON)

                // The pieces written escaped are the bytes of the plain summary escaped whole.
                XCTAssertEqual(summaryBytes(of: comparison, mockId: mockId, tenant: tenant), escapedWhole(nearMiss.summary), nearMiss.summary)
            }
            let bytes = written.bytes()
            XCTAssertEqual(try JSONDecoder().decode([CatbirdNearMiss].self, from: Data(Array("[".utf8) + bytes + Array("]".utf8))), expected)
        }
    }

    /// ``ByteWriter/appendJSONString(_:lineBreaksAsSpaces:)`` (the one escaper; ``JSONText``
    /// writes with it): the escapes written by hand for one text, and every odd text, with its
    /// escape at each place of the 8-byte words the scan reads, read back by `JSONDecoder`.
    func testJSONStringsAreEscapedAndReadBack() throws {
        XCTAssertEqual(JSONText.string("a\"b\\c\u{7F}\u{1}\r\n\té"), #""a\"b\\c\#u{7F}\u0001\r\n\té""#)
        for text in odd + ["a\"b\\c\u{7F}\u{1}\r\n", String(repeating: "é\"", count: 300)] {
            for padding in 0..<9 {
                let padded = String(repeating: "x", count: padding) + text + String(repeating: "y", count: padding)
                var writer = ByteWriter(capacity: 1)
                writer.appendJSONString(padded)
                let escaped = writer.bytes()
                XCTAssertEqual(try JSONDecoder().decode(String.self, from: Data(escaped)), padded)
                // One line: CR and LF become spaces.
                var oneLine = ByteWriter(capacity: 1)
                Array(padded.utf8).withUnsafeBufferPointer { oneLine.appendJSONString($0, lineBreaksAsSpaces: true) }
                let spaced = String(decoding: padded.utf8.map { $0 == 10 || $0 == 13 ? 32 : $0 }, as: UTF8.self)
                let line = oneLine.bytes()
                XCTAssertEqual(try JSONDecoder().decode(String.self, from: Data(line)), spaced)
                // In pieces (a 404's reason): the same bytes as the whole, without its quotes.
                var pieces = ByteWriter(capacity: 1)
                for piece in [String(repeating: "x", count: padding), text, String(repeating: "y", count: padding)] {
                    pieces.appendJSONStringContent(piece, lineBreaksAsSpaces: true)
                }
                let piecesBytes = pieces.bytes()
                XCTAssertEqual(Array(#"""#.utf8) + piecesBytes + Array(#"""#.utf8), line)
                // Nested (a value quoted in the reason): the literal's bytes, escaped as a whole.
                var nested = ByteWriter(capacity: 1)
                nested.appendNestedJSONString(padded)
                var literal = ByteWriter(capacity: 1)
                literal.appendJSONStringContent(JSONText.string(padded), lineBreaksAsSpaces: true)
                let nestedBytes = nested.bytes()
                let literalBytes = literal.bytes()
                XCTAssertEqual(nestedBytes, literalBytes)
                let inner = try JSONDecoder().decode(String.self, from: Data(Array(#"""#.utf8) + nestedBytes + Array(#"""#.utf8)))
                XCTAssertEqual(try JSONDecoder().decode(String.self, from: Data(inner.utf8)), padded)
            }
        }
        // By hand: a quote, a backslash, a line feed and a control byte, nested.
        var nested = ByteWriter(capacity: 1)
        nested.appendNestedJSONString("a\"b\\c\n\u{1}")
        XCTAssertEqual(nested.text(), #"\"a\\\"b\\\\c\\n\\u0001\""#)
    }

    func testDecimalsAreWrittenAsSwiftPrintsThem() {
        for number: Int64 in [0, 1, 9, 10, 101, -1, -250, 9_007_199_254_740_993, .max, .min] {
            var writer = ByteWriter(capacity: 1)
            writer.appendDecimal(number)
            let decimal = String(decoding: writer.bytes(), as: UTF8.self)
            XCTAssertEqual(decimal, String(number))
        }
    }

    /// A 404's closest mocks keep the ranking's comparison (made without fields) when their
    /// pattern has neither header nor body patterns (``CompiledRequestPattern/fieldsWithoutComparing(distance:_:urlMatches:)``):
    /// the near miss and summary written from it are the bytes a comparison with fields gives,
    /// for each url kind, matching and differing urls and methods, and odd texts; a pattern with
    /// a header or a body pattern is not taken (its verdicts were not kept).
    func testTheRankingsComparisonWithoutHeadersOrBodyWritesWhatAComparisonWithFieldsWrites() throws {
        let urls: [PatternMatch] = odd.flatMap { [PatternMatch.equal("/a/" + $0), .wildcard("/a/*" + $0), .regexp("^/a/")] }
        for url in urls {
            for method: RequestPattern.HTTPMethod in [.GET, .POST] {
                for target in odd.map({ "/a/" + $0 }) + ["/b", ""] {
                    let compiled = try CompiledRequestPattern(RequestPattern(method: method, url: url))
                    let probe = NearMissProbe(method: "GET", target: target)
                    let urlMatches = compiled.urlMatches(probe, until: deadline)
                    func compared(fields: Bool) -> RequestComparison {
                        compiled.compare(probe, headerValue: { _ in nil }, body: [], urlMatches: urlMatches, until: deadline, fields: fields)
                    }
                    let ranked = compared(fields: false)
                    let kept = try XCTUnwrap(compiled.fieldsWithoutComparing(distance: ranked.distance, probe, urlMatches: urlMatches))
                    let fresh = compared(fields: true)
                    XCTAssertEqual(kept.distance, fresh.distance)
                    XCTAssertFalse(kept.cutShort)
                    XCTAssertEqual(try written(kept), try written(fresh), "\(method) \(url) for GET \(target)")
                }
            }
        }
        let withHeader = try CompiledRequestPattern(RequestPattern(method: .GET, url: PatternMatch.equal("/h"), headers: ["X-A": PatternMatch.equal("1")]))
        let withBody = try CompiledRequestPattern(RequestPattern(method: .GET, url: PatternMatch.equal("/h"), body: .contains("x")))
        let probe = NearMissProbe(method: "GET", target: "/h")
        XCTAssertNil(withHeader.fieldsWithoutComparing(distance: 0.5, probe, urlMatches: true))
        XCTAssertNil(withBody.fieldsWithoutComparing(distance: 0.5, probe, urlMatches: true))
    }

    /// `comparison` written as a near miss and as the reason's summary (mock 7 at position 2 of tenant "s1").
    private func written(_ comparison: RequestComparison) throws -> [String] {
        var json = ByteWriter(capacity: 16)
        var requestJSON = NearMissRequestJSON()
        comparison.writeNearMissJSON(
            to: &json, distance: (comparison.distance * 1000).rounded() / 1000, mockId: 7, position: 2, tenant: "s1",
            requestJSON: &requestJSON)
        return [String(decoding: json.bytes(), as: UTF8.self), try summary(of: comparison, mockId: 7, tenant: "s1")]
    }
}
