import CatbirdDomain
import CatbirdHTTP
import CatbirdMatching
import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// JSON request and response bodies for the control and admin routes.
enum JSONBody {
    /// The Content-Type of every JSON answer.
    static let contentType = "application/json; charset=utf-8"

    /// `text` as a JSON string literal for a reason, cut to 64 bytes (``CatbirdSupport/JSONText/shortString(_:maxBytes:)``).
    static func quoted(_ text: String) -> String { JSONText.shortString(text) }

    /// A 200 (or `status`) answer with `value` encoded as JSON.
    static func response(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(value)
            return HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(data))
        } catch {
            return APIError(status: 500, reason: "could not encode the answer: \(error)").response
        }
    }

    /// A journal page's answer: its JSON as built, bounded in bytes (``EncodedJournalPage``).
    static func page(_ page: EncodedJournalPage) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: page.json)
    }

    /// Decodes a control body after checking its Content-Type (``read(_:from:shapeHint:describe:)``,
    /// its refusal's ``JSONBodyRefusal/error``).
    /// - Throws: ``APIError``: 415 or 400, as ``read(_:from:shapeHint:describe:)`` says.
    static func decode<T: Decodable>(
        _ type: T.Type, from request: HTTPRequest, shapeHint: String = defaultShapeHint,
        describe: (any Error) -> String = readableReason
    ) throws(APIError) -> T {
        do {
            return try read(type, from: request, shapeHint: shapeHint, describe: describe)
        } catch {
            throw error.error
        }
    }

    /// Decodes a control body after checking its Content-Type, saying whether a refused body
    /// was read as JSON.
    /// - Parameter shapeHint: what to check when the body is well-formed JSON of the wrong shape
    ///   and the decoder cannot say where (see ``wrongShape(_:parsed:nesting:hint:)``).
    /// - Throws: ``JSONBodyRefusal/unreadable(_:)``: ``APIError`` 415 when the Content-Type is
    ///   missing or not JSON, or the body has a `Content-Encoding` (other than `identity`:
    ///   control bodies are read as sent); 400 with a readable reason when the body is not JSON
    ///   by RFC 8259 (naming the line, column and byte offset: ``JSONSyntaxError``), when it
    ///   holds a lone surrogate escape or a number out of range (``JSONTextCheck``, named
    ///   whether or not the decoder would have read the field), or when it holds more than
    ///   ``valueLimit`` values. ``JSONBodyRefusal/undecodable(_:)``: 400 when an object in it
    ///   has a key its type does not know (``UnknownWireKeys``, with the key probably meant),
    ///   when it does not decode, or when an object in it names the same key twice; unreadable
    ///   again when Foundation's parser does not read it (nested past ``CatbirdMatching/JSONNesting/limit``).
    static func read<T: Decodable>(
        _ type: T.Type, from request: HTTPRequest, shapeHint: String = defaultShapeHint,
        describe: (any Error) -> String = readableReason
    ) throws(JSONBodyRefusal) -> T {
        do { try checkHead(of: request) } catch { throw .unreadable(error) }
        // One pass over the text, whether or not the decoder reads it; the decoder calls these
        // values malformed JSON or the wrong type: say what they are.
        let findings = JSONTextCheck.scan(request.body, valueLimit: valueLimit)
        if findings.valueLimitExceeded { throw .unreadable(.badRequest(tooManyValues)) }
        if let reason = findings.syntaxError ?? findings.unrepresentableValue { throw .unreadable(.badRequest(reason)) }
        let data = Data(request.body)
        let value: T
        // Whether a text gets past the decoder's number check (false only for the error with no
        // coding path that a refused fraction gets).
        let decodes = { (text: Data) in
            do {
                _ = try decoder.decode(T.self, from: text)
                return true
            } catch DecodingError.dataCorrupted(let context) {
                return !context.codingPath.isEmpty
            } catch {
                return true
            }
        }
        do {
            value = try decoder.decode(T.self, from: data)
        } catch {
            if let keys = UnknownWireKeys(error) { throw .undecodable(.badRequest(keys.reasonWithSuggestions)) }
            // Foundation's reason may not say where; the body is parsed once more to find out.
            let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            // A repeated key may be why well-formed JSON does not decode (`"type"` twice).
            if let duplicate = findings.duplicateKeyReason, parsed != nil { throw .undecodable(.badRequest(duplicate)) }
            // Text Foundation's parser does not read (nested past its limit) was not read as JSON.
            let refusal = parsed == nil ? JSONBodyRefusal.unreadable : JSONBodyRefusal.undecodable
            if let reason = wholeNumberMismatch(error, in: parsed, decodes: decodes)
                ?? wrongShape(error, parsed: parsed != nil, nesting: findings.deepestNesting, hint: shapeHint)
            {
                throw refusal(.badRequest(reason))
            }
            throw refusal(.badRequest(describe(error)))
        }
        if let duplicate = findings.duplicateKeyReason { throw .undecodable(.badRequest(duplicate)) }
        if let reason = lostFractionReason(findings.numbersLosingFraction, data: data, decodes: decodes) {
            throw .undecodable(.badRequest(reason))
        }
        return value
    }

    /// The reason for a 400 when a whole-number field (`limit`, `delay`, `since`) holds a number
    /// written with a fraction that its 64-bit float lost whole (`9007199254740993.5` reads as
    /// 9007199254740993 or …994), so the decoder took it with the fraction gone (tester finding
    /// tester60a-F1: a mock's `limit` of `9007199254740993.5` was stored as `9007199254740993`;
    /// `2.5` was refused). Which fields take no fraction is the type's to say: each number is
    /// probed with `0.5` in its place (``RefusedFractions``). Nil when there is none, or every
    /// one is in a field that takes fractions (SQL `params`, a wait's `timeout`).
    private static func lostFractionReason(
        _ numbers: [(steps: [JSONTextCheck.PathStep], path: String, literal: String)], data: Data, decodes: (Data) -> Bool
    ) -> String? {
        guard !numbers.isEmpty, let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        let probed = numbers.map { number in
            RefusedFractions.Number(path: number.steps, shown: "'\(number.path)' (\(number.literal))", value: 0.5)
        }
        let refused = RefusedFractions.refused(probed, in: parsed, decodes: decodes)
        guard !refused.isEmpty else { return nil }
        return refused.map(\.shown).joined(separator: ", ")
            + " must be a whole number (a number written with a fraction is read as a 64-bit float, which lost this one's)"
    }

    /// The most JSON values a control body may hold: 100,000. The largest any route takes is
    /// a mock with the most header patterns a request head can carry (about 7,000, a few values
    /// each) or an SQL query's parameters (SQLite binds at most 32,766); Foundation's decoder
    /// builds every value before it can refuse any, about 34 bytes of memory and 2 µs of CPU
    /// per body byte for a body of small values (tester finding T17-F2: a 40 MB `removeAll`
    /// with an unknown key holding 20 million zeros held 1.4 GB for 79 s before its 400).
    static let valueLimit = 100_000

    private static let tooManyValues =
        "the JSON body holds more than \(valueLimit) values (array elements, object members): no control body needs that many "
        + "(a mock's header patterns, an SQL query's parameters are far fewer), so it is not read further"

    /// The decoder of control bodies: unknown keys refused (docs/protocol.md#errors).
    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.catbirdRefusesUnknownKeys] = true
        return decoder
    }

    /// A decoding failure in the user's words (``Swift/DecodingError/readableReason``): the
    /// field named by its path, never a Swift debug description.
    static func readableReason(_ error: any Error) -> String {
        (error as? DecodingError)?.readableReason ?? "the JSON body does not have the expected shape"
    }

    /// The check suggested when a well-formed body has the wrong shape.
    static let defaultShapeHint = "check that every field has the type documented for this route"

    /// Foundation on Linux reports some JSON that is not malformed as "not valid JSON" with no
    /// coding path: a value of the wrong type where its decoder cannot say where (such as a
    /// string `"status":"200"` on some versions), or nesting deeper than its parser's limit
    /// (512 levels, ``CatbirdMatching/JSONNesting/limit``: 512 read, 513 refused).
    /// This says which instead of calling the JSON malformed; nil for other errors and for JSON
    /// that really is malformed. Called after ``wholeNumberMismatch(_:in:)``, which names
    /// fractional numbers.
    /// - Parameters:
    ///   - parsed: whether `JSONSerialization` reads the body.
    ///   - nesting: the body's deepest nesting (``JSONTextCheck/Findings/deepestNesting``).
    private static func wrongShape(_ error: any Error, parsed: Bool, nesting: Int, hint: String) -> String? {
        guard case let DecodingError.dataCorrupted(context) = error, context.codingPath.isEmpty else { return nil }
        if parsed { return "the JSON is well-formed but does not have the expected shape: \(hint)" }
        guard nesting > JSONNesting.limit else { return nil }
        return "the JSON body \(JSONNesting.reason)"
    }

    /// Foundation on Linux reports a number that does not fit an integer field (`200.5`,
    /// `1e30`) as "not valid JSON" with no coding path. When the JSON is in fact valid, this
    /// names the offending numbers instead (`parsed`: the body as `JSONSerialization` reads it):
    /// of the fractional ones, those the type refuses (``RefusedFractions``, asking `decodes`).
    private static func wholeNumberMismatch(_ error: any Error, in parsed: Any?, decodes: (Data) -> Bool) -> String? {
        guard case let DecodingError.dataCorrupted(context) = error, context.codingPath.isEmpty,
              let root = parsed else { return nil }
        var fractions: [RefusedFractions.Number] = []
        var tooLarge: [String] = []
        var tooSmall: [String] = []
        var ranged: [String] = []
        /// Whole numbers in range written with a fraction or an exponent, past 2^53.
        var floatForms: [String] = []
        /// Numbers past 2^53 whose fraction their double lost.
        var lostFractions: [String] = []
        func visit(_ value: Any, _ path: String, _ steps: [RefusedFractions.Step]) {
            if let object = value as? [String: Any] {
                for key in object.keys.sorted() {
                    let shown = JSONText.shortText(key)
                    visit(object[key]!, path.isEmpty ? shown : "\(path).\(shown)", steps + [.key(key)])
                }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { visit(element, "\(path)[\(index)]", steps + [.index(index)]) }
            } else if let number = value as? NSNumber, !(value is Bool) {
                let double = number.doubleValue
                if double.rounded() != double {
                    // `delay` is the only fractional-looking number a user sends by mistake: its unit said (try10a F1).
                    let shown = "'\(path)' (\(number)" + (path.hasSuffix("delay") ? ", in seconds)" : ")")
                    fractions.append(RefusedFractions.Number(path: steps, shown: shown, value: double))
                } else if abs(double) > 9.2e18 {
                    // A negative one is too small, not too large (T11-F10); a field with a
                    // documented range says it, not the 64-bit bound (T17-F3: `"status":
                    // 99999999999999999999` was "too large (at most 9223372036854775807)"),
                    // the range and its words the rule's own (``CatbirdMatching/ResponseRules/rangesByKey``).
                    let shown = "'\(path)' (\(number))"
                    let key = path.split(separator: ".").last.map(String.init) ?? path
                    // The number as read (a decimal's digits, not its rounded double), which
                    // may be in range or have a fraction the double lost (tester21a-F3:
                    // `9223372036854775807.0` was "too large (at most 9223372036854775807)",
                    // `9223372036854775806.5` too large rather than not whole).
                    let text = "\(number)"
                    if let range = ResponseRules.rangesByKey[key] {
                        ranged.append("\(shown) is out of range: it must be \(range.wording)")
                    } else if Int64(text) != nil {
                        floatForms.append(shown)
                    } else if Self.hasFraction(text) {
                        lostFractions.append(shown)
                    } else if double < 0 {
                        tooSmall.append(shown)
                    } else {
                        tooLarge.append(shown)
                    }
                }
            }
        }
        visit(root, "", [])
        let fractional = RefusedFractions.refused(fractions, in: root, decodes: decodes).map(\.shown)
        // At most a few named, then how many more (T15A-F3: every value was listed).
        func named(_ items: [String]) -> String {
            let shown = items.prefix(UnknownWireKeys.namedUnknownKeys).joined(separator: ", ")
            return items.count > UnknownWireKeys.namedUnknownKeys ? shown + " and \(items.count - UnknownWireKeys.namedUnknownKeys) more" : shown
        }
        if !fractional.isEmpty || !lostFractions.isEmpty { return "\(named(fractional + lostFractions)) must be a whole number" }
        if let first = ranged.first { return first }
        if !floatForms.isEmpty {
            return "\(named(floatForms)) is written with a fraction or an exponent, which is read as a 64-bit float, exact only "
                + "up to 9007199254740992 (2^53): write it as digits alone"
        }
        if !tooLarge.isEmpty {
            return "\(named(tooLarge)) is too large (at most \(Int.max))"
        }
        if !tooSmall.isEmpty {
            return "\(named(tooSmall)) is too small (at least \(Int.min))"
        }
        return nil
    }

    /// Whether the decimal `text` (a number's description) has a nonzero fractional part.
    private static func hasFraction(_ text: String) -> Bool {
        guard let dot = text.firstIndex(of: "."), !text.contains(where: { $0 == "e" || $0 == "E" }) else { return false }
        return text[text.index(after: dot)...].contains { $0 != "0" }
    }

    /// Refuses a control body from the request's head: 400 when its Content-Type fields (or
    /// one field's comma-separated list) name several types, not all JSON; 415 when the
    /// Content-Type is missing or not JSON, or the body has a `Content-Encoding` other than
    /// `identity` (control bodies are read as sent). Also checked before the body is read, for a client that waits for `100
    /// Continue` (``RouteTable/refusalBeforeBody(_:tenant:isAdmin:)``).
    /// - Throws: ``APIError`` 400 or 415.
    static func checkHead(of request: HTTPRequest) throws(APIError) {
        // Several types, in several fields or one comma-separated list: the first field alone
        // was read, so which order they came in decided between 201 and a 415 asking for the
        // type sent (tester finding tester59c-F2). JSON in each (another spelling, a charset)
        // is one type (tester60a-F7).
        let fields = request.headers.values("Content-Type")
        let types = fields.flatMap { HTTPFieldList.members($0).map(String.init) }
        if types.count > 1 {
            guard types.allSatisfy({ isJSON($0) }) else { throw .severalContentTypes(types) }
        } else if !isJSON(types.first) {
            throw .unsupportedMediaType(request.headers.first("Content-Type"))
        }
        // Every line: `identity` on the first and `gzip` on a second is gzip (tester35a-F2).
        if let coding = request.headers.values("Content-Encoding").first(where: { !ContentDecoding.codings($0).isEmpty }) {
            throw .unsupportedContentEncoding(String(Substring(coding).trimmingOptionalWhitespace()))
        }
    }

    /// `application/json`, `application/json; charset=…` or a `+json` media type.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = (contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }
}
