import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// A WireMock stub mapping translated by README.md's "Coming from WireMock or MockServer" table.
///
/// Every key of the stub, its request and its response that is not translated is named under
/// "Not carried over" (tester finding T18A-F2: an unknown or unsupported url key, `cookies`,
/// a typo such as `urlpath`, were dropped in silence, the url becoming a catch-all `*`).
/// WireMock's url, header and body regular expressions and `contains` are case-sensitive;
/// Catbird's `regexp` is not, so each translated one starts with ICU's inline flag `(?-i)`
/// (docs/matching.md#pattern-kinds).
extension ForeignStubShape {
    /// The url keys translated, in the order looked at (WireMock takes one of them).
    static let wireMockURLKeys = ["url", "urlPath", "urlPathPattern", "urlPattern", "urlPathTemplate"]

    /// Keys that name or file a stub and change nothing it matches or answers: not noted.
    private static let wireMockIdentityKeys: Set<String> = ["id", "uuid", "name", "persistent", "metadata", "insertionIndex"]

    /// Hints for request keys the translation does not carry over.
    private static let wireMockRequestHints = [
        "cookies": cookiesHint,
        "basicAuthCredentials": "match the Authorization header with a header pattern",
        "pathParameters": "a path template's variable is translated as any one path segment",
        "urlEqualTo": "the Java DSL's name: the JSON key is \"url\"",
        "urlMatching": "the Java DSL's name: the JSON key is \"urlPattern\"",
        "urlPathEqualTo": "the Java DSL's name: the JSON key is \"urlPath\"",
        "urlPathMatching": "the Java DSL's name: the JSON key is \"urlPathPattern\"",
        "queryParameters": queryHint,
    ]

    static func reason(wireMock stub: [String: JSONValue], count: Int) -> String {
        var t = Translation()
        t.noteUnread(stub, read: ["request", "response"], ignored: wireMockIdentityKeys, hints: [
            "priority": priorityHint,
            "scenarioName": "Catbird has no scenarios: \"limit\" makes a mock answer that many requests",
        ])
        t.noURL = "the stub has no url key (WireMock then matches every url)"
        if case let .object(request)? = stub["request"] {
            var read: Set<String> = ["method", "headers", "bodyPatterns"]
            switch request["method"] {
            case let .string(method)? where method.uppercased() != "ANY": t.method = method
            case .string?, nil: t.notes.append("\"method\": \"ANY\" or none (Catbird compares methods exactly: GET is shown; add one mock per method)")
            case let other?: t.notes.append("\"method\": \(JSONText.shortText(other.jsonText)) (not a string); GET is shown")
            }
            if let key = wireMockURLKeys.first(where: { request[$0] != nil }) {
                if case let .string(text)? = request[key] {
                    t.url = wireMockURL(key, text)
                    read.insert(key)
                } else {
                    t.noURL = "its \(JSONText.string(key)) is not a string"
                }
            } else if request.keys.contains(where: { $0.lowercased().hasPrefix("url") }) {
                t.noURL = "none of its keys is a url key translated here (\(wireMockURLKeys.map(JSONText.string).joined(separator: ", ")))"
            }
            if t.url != nil, let second = wireMockURLKeys.first(where: { request[$0] != nil && !read.contains($0) }) {
                t.notes.append("\(JSONText.string(second)) (a second url key: WireMock takes one)")
                read.insert(second)
            }
            switch request["headers"] {
            case let .object(headers)?:
                for (name, matcher) in headers.sorted(by: { $0.key < $1.key }) {
                    guard case let .object(members) = matcher, let (match, read) = wireMockString(members) else {
                        t.notes.append("the header matcher of \(JSONText.shortString(name))")
                        continue
                    }
                    t.headers[name] = match
                    // Tester finding tester46a-F1: a typo (`caseInsensitve`) was dropped in silence.
                    for key in members.keys.sorted() where !read.contains(key) {
                        t.notes.append("the header matcher of \(JSONText.shortString(name))'s \(JSONText.string(key))"
                            + (key == "caseInsensitive" ? " (\(Self.caseInsensitiveNote(matcher: read)))" : ""))
                    }
                }
            case nil: break
            default: t.notes.append("\"headers\" (not an object of header matchers)")
            }
            switch request["bodyPatterns"] {
            case let .array(patterns)?:
                if let first = patterns.first { t.translateWireMockBody(first) }
                if patterns.count > 1 { t.notes.append("the body patterns after the first (a Catbird mock has one body pattern)") }
            case nil: break
            // Tester finding tester46a-F4: an object here dropped the body matcher in silence.
            default: t.notes.append("\"bodyPatterns\" (not a list)")
            }
            var hints = wireMockRequestHints
            for key in request.keys where !read.contains(key) {
                // A url key in another case (`urlpath`): WireMock's keys are case-sensitive.
                if let spelled = wireMockURLKeys.first(where: { $0.lowercased() == key.lowercased() && $0 != key }) {
                    hints[key] = "WireMock's key is spelled \(JSONText.string(spelled))"
                }
            }
            t.noteUnread(request, read: read, hints: hints)
        }
        if case let .object(response)? = stub["response"] {
            if let status = number(response["status"]) {
                t.response.status = whole(status)
                if let note = changedNumber("status", response["status"], status, fractions: false, negative: true) { t.notes.append(note) }
            } else if let status = response["status"] {
                t.notes.append(notANumber("status", status) + "; 200 is shown")
            }
            if case let .object(headers)? = response["headers"] {
                for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                    switch value {
                    case let .string(text): t.addResponseHeader(name, [text])
                    case let .array(values): t.addResponseHeader(name, values.map(text))
                    default: t.addResponseHeader(name, [value.jsonText])
                    }
                }
            }
            // WireMock serves the first of `body`, `jsonBody` (not null), `base64Body` given; the
            // others are named (tester finding tester46a-F4: a `body` beside `jsonBody` went in silence).
            var bodyKeys: Set<String> = []
            if case let .string(text)? = response["body"] {
                t.response.body = Data(text.utf8)
                bodyKeys.insert("body")
            } else if let json = response["jsonBody"], json != .null {
                t.response.body = Data(json.jsonText.utf8)
                bodyKeys.insert("jsonBody")
                if let note = inexactJSONBody("jsonBody", json) { t.notes.append(note) }
            } else if case let .string(base64)? = response["base64Body"] {
                t.response.body = Data(strictBase64: base64)
                bodyKeys.insert("base64Body")
                // Not padded base64 (RFC 4648 §4): named, not dropped in silence (fix18c's leftover).
                if t.response.body == nil {
                    t.notes.append("\"base64Body\" (not padded base64, RFC 4648 §4: send the body's bytes as \"body\" in padded base64)")
                }
            }
            if response["jsonBody"] == .null { bodyKeys.insert("jsonBody") }
            let served = bodyKeys.first.map { "WireMock serves \(JSONText.string($0)) when both are given" } ?? ""
            if let milliseconds = number(response["fixedDelayMilliseconds"]) {
                if let note = changedNumber("fixedDelayMilliseconds", response["fixedDelayMilliseconds"], milliseconds, fractions: true, negative: false) {
                    t.notes.append(note + ": no delay is shown")
                } else {
                    t.response.delay = whole(milliseconds / 1000, .up)
                }
            } else if let delay = response["fixedDelayMilliseconds"] {
                t.notes.append(notANumber("fixedDelayMilliseconds", delay))
            }
            t.noteUnread(
                response, read: bodyKeys.union(["status", "headers", "fixedDelayMilliseconds"]),
                hints: [
                    "bodyFileName": "send the file's bytes as \"body\", or use --mocks-dir", "body": served, "jsonBody": served,
                    "base64Body": served,
                    // What the action does instead, said (tester finding tester58b-F7: a fault stub
                    // became a plain 200, which made an error-path test pass for the wrong reason).
                    "fault": "Catbird cannot simulate a connection fault: this action answers the status shown instead; a 5xx "
                        + "status, or a delay past the app's timeout, is the nearest",
                    "proxyBaseUrl": "Catbird forwards with --redirect-url or --proxy, not per mock: this action answers the status "
                        + "shown instead",
                    "transformers": "Catbird has no response templates: the body is served as written",
                ].filter { !$0.value.isEmpty })
        }
        return t.reason("a WireMock stub mapping ({\"request\": …, \"response\": …})", count: count)
    }

    /// WireMock's url key `key` with the text `value` as a url pattern: `url` equal (path and
    /// query, as WireMock compares it); the path-only keys as a regexp that also allows a query;
    /// the regular expressions and the path template case-sensitive, as WireMock's are.
    static func wireMockURL(_ key: String, _ value: String) -> PatternMatch {
        let query = querySuffix
        return switch key {
        case "url": PatternMatch(kind: .equal, value: value)
        case "urlPath": PatternMatch(kind: .regexp, value: "(?-i)^" + escaped(value) + query)
        case "urlPattern": PatternMatch(kind: .regexp, value: wholeValue(value, dotAll: true))
        case "urlPathPattern": PatternMatch(kind: .regexp, value: "(?s-i)^" + pathAnchored(pathOnly(value)))
        default: PatternMatch(kind: .regexp, value: "(?-i)^" + pathTemplate(value) + query)
        }
    }

    /// A path template as an ICU regular expression over the path. As WireMock 3 reads one
    /// (`names` nil): `{name}` is one or more characters other than `/` (here nor `?`, where the
    /// query starts), `**` any run of characters (here up to the query), the rest literal text.
    /// As MockServer reads a path with `pathParameters` (their names in `names`): only a
    /// `{name}` of those is a segment, and `**` is literal text.
    static func pathTemplate(_ template: String, names: Set<String>? = nil) -> String {
        var out = ""
        var rest = Substring(template)
        while let first = rest.first {
            if first == "{", let close = rest.dropFirst().firstIndex(of: "}"), close > rest.index(after: rest.startIndex),
               names?.contains(String(rest[rest.index(after: rest.startIndex)..<close])) ?? true {
                out += "[^/?]+"
                rest = rest[rest.index(after: close)...]
            } else if names == nil, rest.hasPrefix("**") {
                out += "[^?]*"
                rest = rest.dropFirst(2)
            } else {
                out += escaped(String(first))
                rest = rest.dropFirst()
            }
        }
        return out
    }

    /// A WireMock string matcher (`{"equalTo": "v"}` and its `caseInsensitive`, `matches`,
    /// `contains`) as a PatternMatch, with the keys of `members` it read; nil when it is none
    /// of those. A whole-value regexp ends in `\z`, as the body's do: ICU's `$` also matches
    /// before a last line terminator (VT, FF, NEL, U+2028), which a header value may end in
    /// (tester finding tester60a-F6).
    private static func wireMockString(_ members: [String: JSONValue]) -> (PatternMatch, read: Set<String>)? {
        if case let .string(value)? = members["equalTo"] {
            if members["caseInsensitive"] == .bool(true) {
                return (PatternMatch(kind: .regexp, value: "^" + escaped(value) + "\\z"), ["equalTo", "caseInsensitive"])
            }
            return (PatternMatch(kind: .equal, value: value), members["caseInsensitive"] == .bool(false) ? ["equalTo", "caseInsensitive"] : ["equalTo"])
        }
        if case let .string(value)? = members["matches"] { return (PatternMatch(kind: .regexp, value: wholeValue(value, dotAll: true)), ["matches"]) }
        if case let .string(value)? = members["contains"] { return (PatternMatch(kind: .regexp, value: "(?-i)" + escaped(value)), ["contains"]) }
        return nil
    }

    /// The note on a `caseInsensitive` not carried over beside the matcher in `read` (tester
    /// finding tester61a-F5: beside `contains` or `matches` it said "translated with equalTo
    /// alone"): `WireMock reads it with "equalTo" only: translated with "contains" alone`.
    static func caseInsensitiveNote(matcher read: Set<String>) -> String {
        let matcher = read.subtracting(["caseInsensitive"]).sorted().first ?? "equalTo"
        return matcher == "equalTo"
            ? "translated with \"equalTo\" alone"
            : "WireMock reads it with \"equalTo\" only: translated with \(JSONText.string(matcher)) alone"
    }
}
