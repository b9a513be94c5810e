import CatbirdSupport
@_spi(Server) import CatbirdWire

/// A WireMock stub's body matcher (the first of its `bodyPatterns`) translated by README.md's
/// "Coming from WireMock or MockServer" table, what it does not carry over named.
extension ForeignStubShape.Translation {
    /// Sets ``body`` from WireMock body matcher `matcher`, noting each of its keys not carried
    /// over exactly, or, when its kind is not translated, noting the matcher by its keys
    /// (tester finding tester46a-F2: one untranslated matcher was called "body patterns beyond
    /// one …").
    mutating func translateWireMockBody(_ matcher: JSONValue) {
        guard case let .object(members) = matcher else {
            notes.append("the body pattern \(JSONText.shortText(matcher.jsonText)) (not an object)")
            return
        }
        if case let .object(form)? = members["matchesJsonPath"] {
            translateJSONPathObjectForm(form, members: members)
            return
        }
        guard let translated = Self.wireMockBody(members) else {
            let kinds = members.keys.sorted().map(JSONText.string).joined(separator: ", ")
            notes.append("the body pattern \(kinds) (translated: equalTo, contains, matches, equalToJson, matchesJsonPath)")
            return
        }
        body = translated.pattern
        noteUnread(members, read: translated.read, hints: [
            "ignoreExtraElements": "the json pattern matches the whole document, extra fields not ignored",
            "ignoreArrayOrder": "the json pattern compares arrays in order",
            "caseInsensitive": ForeignStubShape.caseInsensitiveNote(matcher: translated.read),
        ])
    }

    /// WireMock's `{"matchesJsonPath": {"expression": "$.a", "equalTo": "x"}}` as a `jsonPath`
    /// pattern with `equalTo` (docs/matching.md#body-patterns), said to compare JSON values:
    /// WireMock compares the field's text, so `"1"` there also matches the number 1. Another
    /// matcher in the object form (`contains`, `matches`, …) is not translated.
    private mutating func translateJSONPathObjectForm(_ form: [String: JSONValue], members: [String: JSONValue]) {
        guard case let .string(path)? = form["expression"], case let .string(value)? = form["equalTo"],
              form.keys.allSatisfy({ $0 == "expression" || $0 == "equalTo" }) else {
            let keys = form.keys.sorted().map(JSONText.string).joined(separator: ", ")
            notes.append("the body pattern \"matchesJsonPath\" with \(keys) (only {\"expression\": …, \"equalTo\": \"…\"} is translated)")
            return
        }
        body = BodyPattern(kind: .jsonPath, value: path, equalTo: .string(value))
        let shown = JSONText.shortString(value)
        let literal = Self.isJSONLiteral(value) ? "; if the field holds \(value) itself, not a string, write \"equalTo\": \(value) in the action" : ""
        differences.append("\"matchesJsonPath\"'s \"equalTo\" \(shown), as the JSON string \(shown) (WireMock compares the field's "
            + "text; the jsonPath pattern compares JSON values, so only a field holding that string matches it)\(literal)")
        noteUnread(members, read: ["matchesJsonPath"])
    }

    /// Whether `text` is a JSON number, `true`, `false` or `null`: what WireMock's text
    /// comparison matches in a field that holds that value, not a string.
    private static func isJSONLiteral(_ text: String) -> Bool {
        text == "true" || text == "false" || text == "null"
            || text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil
    }

    /// A WireMock body matcher as a body pattern, with the keys of `members` it read (those it
    /// translates exactly); nil when it is none translated. `equalTo` with `caseInsensitive`
    /// is a regexp (Catbird's are case-insensitive), as the header form is. A whole-body regexp
    /// ends in `\z`, not `$`, which ICU also matches before a last line break: `abc\n` matched
    /// a translated `equalTo "abc"` or `matches "a.c"`, which WireMock's do not (tester finding
    /// tester59b-F1).
    private static func wireMockBody(_ members: [String: JSONValue]) -> (pattern: BodyPattern, read: Set<String>)? {
        if let json = members["equalToJson"] {
            // Either flag false is the exact comparison the json pattern makes.
            let read = Set(["ignoreExtraElements", "ignoreArrayOrder"].filter { members[$0] == .bool(false) } + ["equalToJson"])
            if case let .string(text) = json { return (BodyPattern(kind: .json, value: text), read) }
            return (BodyPattern(kind: .json, value: json.jsonText), read)
        }
        if case let .string(path)? = members["matchesJsonPath"] { return (BodyPattern(kind: .jsonPath, value: path), ["matchesJsonPath"]) }
        if case let .string(value)? = members["equalTo"] {
            if members["caseInsensitive"] == .bool(true) {
                return (BodyPattern(kind: .regexp, value: "^" + ForeignStubShape.escaped(value) + "\\z"), ["equalTo", "caseInsensitive"])
            }
            return (BodyPattern(kind: .equal, value: value), members["caseInsensitive"] == .bool(false) ? ["equalTo", "caseInsensitive"] : ["equalTo"])
        }
        if case let .string(value)? = members["contains"] { return (BodyPattern(kind: .contains, value: value), ["contains"]) }
        if case let .string(value)? = members["matches"] {
            return (BodyPattern(kind: .regexp, value: ForeignStubShape.wholeValue(value, dotAll: true)), ["matches"])
        }
        return nil
    }
}
