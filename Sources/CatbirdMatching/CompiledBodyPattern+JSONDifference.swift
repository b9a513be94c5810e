import CatbirdSupport
import CatbirdWire

extension CompiledBodyPattern {
    /// For a 404's reason (try9a F7), after "mock 7's ": where `body` fails a `json` or
    /// `jsonPath` pattern: `json differs from the body at $.items[33].qty: expected 33, got 99`
    /// (``JSONDifference``), `json: the body is not JSON`, `jsonPath "$.op": the body has no such
    /// field`, `jsonPath "$.op": the body has "download" there, not "upload"` (values as JSON,
    /// cut after ``JSONDifference/shownLength`` bytes); for a body nested too deep,
    /// `json: the body nests arrays and objects more than 512 levels deep; JSON is read to at
    /// most 512 levels …` (``JSONNesting``). Nil for other kinds, for a body the pattern matches, and when
    /// the request's body reading (``RequestBodyScope``) has not read the body for this pattern
    /// already: nothing of the body is parsed again (a 404 costs what it did), and only a body
    /// that did not read as JSON is scanned again, up to its 513th level at most.
    public func jsonDifference(_ body: [UInt8]) -> String? {
        guard let reading = RequestBodyScope.reading(of: body) else { return nil }
        switch source.kind {
        case .json:
            guard let read = reading.jsonRead, let value = jsonPatternValue else { return nil }
            guard let actual = read else { return "json: \(Self.notJSON(body))" }
            return JSONDifference.first(value, actual).map { "json differs from the body \($0.description)" }
        case .jsonPath:
            guard let field = reading.fieldRead(at: source.value) else { return nil }
            let named = "jsonPath \(JSONText.shortString(source.value))"
            switch field {
            case .notJSON: return "\(named): \(Self.notJSON(body))"
            case .absent: return "\(named): the body has no such field"
            case let .present(found):
                guard let expected = jsonPathEqualTo, expected != found else { return nil }
                let (shownExpected, shownFound) = JSONDifference.shownPair(expected, found)
                return "\(named): the body has \(shownFound) there, not \(shownExpected)"
            }
        default:
            return nil
        }
    }

    /// Why `body` did not read as JSON: `the body is not JSON`, or that it nests deeper than
    /// ``JSONNesting/limit`` (try11 T11-F4: such a body was only "body differs").
    private static func notJSON(_ body: [UInt8]) -> String {
        JSONNesting.tooDeep(body) ? "the body \(JSONNesting.reason)" : "the body is not JSON"
    }
}
