import CatbirdSupport
import CatbirdWire

extension CompiledBodyPattern {
    /// For a 404's reason (try9a F7), after "mock 7's ": where `body` fails a `json` or
    /// `jsonPath` pattern: `json differs from the body at $.items[33].qty: expected 33, got 99`
    /// (``JSONDifference``), `json: the body is not JSON`, `jsonPath "$.op": the body has no such
    /// field`, `jsonPath "$.op": the body has "download" there, not "upload"` (values as JSON,
    /// cut after ``JSONDifference/shownLength`` bytes). Nil for other kinds, for a body the
    /// pattern matches, and when the request's body reading (``RequestBodyScope``) has not read
    /// the body for this pattern already: nothing of the body is read again (a 404 costs what
    /// it did).
    public func jsonDifference(_ body: [UInt8]) -> String? {
        guard let reading = RequestBodyScope.reading(of: body) else { return nil }
        switch source.kind {
        case .json:
            guard let read = reading.jsonRead, let value = jsonPatternValue else { return nil }
            guard let actual = read else { return "json: the body is not JSON" }
            return JSONDifference.first(value, actual).map { "json differs from the body \($0.description)" }
        case .jsonPath:
            guard let field = reading.fieldRead(at: source.value) else { return nil }
            let named = "jsonPath \(JSONText.shortString(source.value))"
            switch field {
            case .notJSON: return "\(named): the body is not JSON"
            case .absent: return "\(named): the body has no such field"
            case let .present(found):
                guard let expected = source.equalTo, expected != found else { return nil }
                return "\(named): the body has \(JSONDifference.shown(found)) there, not \(JSONDifference.shown(expected))"
            }
        default:
            return nil
        }
    }
}
