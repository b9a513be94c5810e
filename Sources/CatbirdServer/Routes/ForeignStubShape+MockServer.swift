import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// A MockServer expectation translated by README.md's "Coming from WireMock or MockServer"
/// table; every key of the expectation, its request and its response that is not translated is
/// named under "Not carried over" (tester finding T18A-F2).
extension ForeignStubShape {
    static func reason(mockServer expectation: [String: JSONValue], count: Int) -> String {
        var t = Translation()
        t.noteUnread(expectation, read: ["httpRequest", "httpResponse", "times"], ignored: ["id"], hints: ["priority": priorityHint])
        t.noURL = "the expectation has no \"path\" (MockServer then matches every path)"
        if case let .object(request)? = expectation["httpRequest"] {
            if case let .string(method)? = request["method"], !method.hasPrefix("!"), escaped(method) == method {
                t.method = method
            } else if case let .string(method)? = request["method"] {
                t.notes.append("\"method\": \(JSONText.shortString(method)) (a negation or a regular expression: Catbird compares methods "
                    + "exactly: GET is shown; add one mock per method)")
            } else {
                t.notes.append("\"method\": none (MockServer then matches every method; Catbird compares methods exactly: GET is shown; add one mock per method)")
            }
            var read: Set<String> = ["method", "headers", "body"]
            if case let .string(path)? = request["path"] {
                if path.hasPrefix("!") {
                    t.noURL = "its \"path\" \(JSONText.shortString(path)) is a negation (\"!\"), which Catbird has not"
                } else if case let .object(parameters)? = request["pathParameters"], !parameters.isEmpty {
                    // Tester finding tester46a-F3: `/api/users/{id}` became the literal text `{id}`.
                    let template = pathTemplate(path, names: Set(parameters.keys))
                    t.url = PatternMatch(kind: .regexp, value: "(?-i)^" + template + querySuffix)
                    read.insert("pathParameters")
                    t.notes.append(template.contains("[^/?]+")
                        ? "the \"pathParameters\" values (each {name} of the path is translated as any one path segment)"
                        : "\"pathParameters\" (none of its names is a {name} of the path, which is translated as its text)")
                } else {
                    t.url = PatternMatch(kind: .regexp, value: "(?-i)^" + plainTextOrPathExpression(path))
                }
                read.insert("path")
            } else if request["path"] != nil {
                t.noURL = "its \"path\" is not a string"
            }
            if case let .object(headers)? = request["headers"] {
                for (name, values) in headers.sorted(by: { $0.key < $1.key }) {
                    // Tester finding tester46a-F7: `"!Accept"` became a header literally named so.
                    if name.hasPrefix("!") {
                        t.notes.append("the header matcher of \(JSONText.shortString(name)) (a negation, which Catbird has not)")
                    } else if name.hasPrefix("?") {
                        // Tester finding tester47a-F6: named an invalid header name instead.
                        t.notes.append("the header matcher of \(JSONText.shortString(name)) (an optional header, which Catbird has not: "
                            + "a header pattern requires the header)")
                    } else if case let .array(list) = values, list.count == 1, case .object? = list.first {
                        // A JSON Schema or `{"not": …, "value": …}`: no text to compare (tester47a-F6: its JSON text was).
                        t.notes.append("the header matcher of \(JSONText.shortString(name)) (a JSON Schema or matcher object, which Catbird has not)")
                    } else if case let .array(list) = values, list.count == 1, let value = list.first.map(text), !value.hasPrefix("!") {
                        let expression = plainTextOrExpression(value)
                        t.headers[name] = expression == value
                            ? PatternMatch(kind: .equal, value: value) : PatternMatch(kind: .regexp, value: "(?-i)^" + expression + "\\z")
                    } else {
                        t.notes.append("the header matcher of \(JSONText.shortString(name)) (only one value, not a negation, is translated)")
                    }
                }
            } else if request["headers"] != nil {
                t.notes.append("\"headers\" (only the {\"name\": [\"value\"]} form is translated)")
            }
            switch request["body"] {
            case let .string(text)?: t.body = BodyPattern(kind: .equal, value: text)
            case let .object(body)?: t.body = mockServerBody(body, notes: &t.notes)
            default: break
            }
            t.noteUnread(request, read: read, hints: [
                "queryStringParameters": queryHint,
                "cookies": cookiesHint,
            ])
        }
        if case let .object(response)? = expectation["httpResponse"] {
            if let status = number(response["statusCode"]) {
                t.response.status = whole(status)
                if let note = changedNumber("statusCode", response["statusCode"], status, fractions: false, negative: true) { t.notes.append(note) }
            } else if let status = response["statusCode"] {
                t.notes.append(notANumber("statusCode", status) + "; 200 is shown")
            }
            switch response["headers"] {
            case let .object(headers)?:
                for (name, values) in headers.sorted(by: { $0.key < $1.key }) {
                    let list = if case let .array(list) = values { list } else { [values] }
                    t.addResponseHeader(name, list.map(text))
                }
            case let .array(headers)?:
                // MockServer 5's own form: [{"name": "Location", "values": ["…"]}].
                for header in headers {
                    if case let .object(field) = header, case let .string(name)? = field["name"], case let .array(values)? = field["values"] {
                        t.addResponseHeader(name, values.map(text))
                    } else {
                        t.notes.append("a response header not of the form {\"name\": …, \"values\": […]}")
                    }
                }
            case nil: break
            default: t.notes.append("the response \"headers\" (neither {\"name\": [\"value\"]} nor [{\"name\": …, \"values\": […]}])")
            }
            switch response["body"] {
            case let .string(text)?: t.response.body = Data(text.utf8)
            case let .object(body)?: t.translateMockServerResponseBody(body)
            case nil: break
            case let other?: t.response.body = Data(other.jsonText.utf8)
            }
            if let delay = response["delay"] { t.translateMockServerDelay(delay) }
            t.noteUnread(response, read: ["statusCode", "headers", "body", "delay"])
        }
        if let times = expectation["times"] { t.translateMockServerTimes(times) }
        return t.reason("a MockServer expectation ({\"httpRequest\": …, \"httpResponse\": …})", count: count)
    }

    /// MockServer's request body matcher `body` (its `"type"` read from its value key) as a
    /// body pattern, or nil; what is not translated exactly is noted in `notes`: a negation
    /// (`"not"`), a JSON body matched but for its extra fields (`matchType` other than
    /// `STRICT`, MockServer's default), any key not read (tester finding tester25b F1:
    /// `subString` and `matchType` were dropped in silence).
    private static func mockServerBody(_ body: [String: JSONValue], notes: inout [String]) -> BodyPattern? {
        var read: Set<String> = ["type"]
        var pattern: BodyPattern?
        if let json = body["json"] {
            read.formUnion(["json", "matchType"])
            let text = if case let .string(text) = json { text } else { json.jsonText }
            pattern = BodyPattern(kind: .json, value: text)
            if body["matchType"] != .string("STRICT") {
                notes.append("the JSON body's \"matchType\" ONLY_MATCHING_FIELDS (MockServer's default: a body with more fields matches "
                    + "there; the json pattern matches the whole document)")
            }
        } else if case let .string(path)? = body["jsonPath"] {
            read.insert("jsonPath")
            pattern = BodyPattern(kind: .jsonPath, value: path)
        } else if case let .string(text)? = body["string"] {
            read.formUnion(["string", "subString"])
            pattern = BodyPattern(kind: body["subString"] == .bool(true) ? .contains : .equal, value: text)
        } else if case let .string(expression)? = body["regex"] {
            read.insert("regex")
            // `\z`, not `$`, which ICU also matches before a last line break (tester61a-F9).
            pattern = BodyPattern(kind: .regexp, value: ForeignStubShape.wholeValue(expression))
        } else {
            notes.append("the request body matcher")
            return nil
        }
        if body["not"] == .bool(false) { read.insert("not") }
        for key in body.keys.sorted() where !read.contains(key) {
            notes.append("the request body matcher's \(JSONText.string(key))" + (key == "not" ? " (a negation, which Catbird has not)" : ""))
        }
        return pattern
    }
}
