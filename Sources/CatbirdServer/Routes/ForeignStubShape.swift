import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// Recognises a WireMock stub mapping (`{"request": …, "response": …}`, or `{"mappings": [...]}`)
/// or a MockServer expectation (`{"httpRequest": …, "httpResponse": …}`) posted to
/// `POST /catbird/api/mocks`, and writes the reason of its 400: what it is, and the Catbird
/// action for the same mock, translated by README.md's "Coming from WireMock or MockServer"
/// table (tester finding try10a F3: such a body got `unknown key "request"`, which says
/// nothing of what to send). Read only once a body failed to decode as an action.
enum ForeignStubShape {
    /// The 400's reason for `body`, or nil when it is not one of those shapes.
    /// - Parameter body: a body ``JSONBody/read(_:from:shapeHint:describe:)`` read as JSON and
    ///   refused as ``JSONBodyRefusal/undecodable(_:)``, so at most ``JSONBody/valueLimit``
    ///   values: it is parsed whole, with no limit of its own (tester finding T17-F2: this parse
    ///   of a refused 40 MB body of 20 million values held 1.4 GB for minutes).
    static func reason(for body: [UInt8]) -> String? {
        guard let value = JSONValue(json: Data(body)) else { return nil }
        var stub = value
        var many = false
        if case let .array(items) = value, let first = items.first {
            stub = first
            many = items.count > 1
        }
        guard case let .object(members) = stub, members["type"] == nil else { return nil }
        if case let .array(mappings)? = members["mappings"], let first = mappings.first, case let .object(mapping) = first {
            return reason(wireMock: mapping, many: mappings.count > 1)
        }
        if members["request"] != nil || members["response"] != nil { return reason(wireMock: members, many: many) }
        if members["httpRequest"] != nil || members["httpResponse"] != nil { return reason(mockServer: members, many: many) }
        return nil
    }

    /// The translation so far: the action's parts and the notes on what did not carry over.
    private struct Translation {
        var method = "GET"
        var url = PatternMatch(kind: .wildcard, value: "*")
        var headers: [String: PatternMatch] = [:]
        var body: BodyPattern?
        var response = ResponseMock(status: 200)
        var notes: [String] = []

        /// The reason: `kind` named, the action as JSON (a long response body left out), the notes.
        func reason(_ kind: String, many: Bool) -> String {
            let pattern = RequestPattern(method: RequestPattern.HTTPMethod(rawValue: method), url: url, headers: headers, body: body)
            var shown = response
            var notes = notes
            if let bytes = response.body, bytes.count > 512 {
                shown.body = nil
                notes.append("the response body (\(bytes.count) bytes) is left out above: send it as \"body\", its bytes in padded base64")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let action = (try? encoder.encode(CatbirdAction.update(pattern, shown))).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let one = many ? "; Catbird takes one action per call: post each mock on its own" : ""
            let said = notes.isEmpty ? "" : " Not carried over: " + notes.joined(separator: "; ") + "."
            return "this is \(kind), not a Catbird action: POST /catbird/api/mocks takes {\"type\": \"update\", \"pattern\": …, "
                + "\"response\": …}\(one). The same mock as a Catbird action: \(action)\(said) "
                + "(README.md#coming-from-wiremock-or-mockserver)"
        }
    }

    // MARK: - WireMock

    private static func reason(wireMock stub: [String: JSONValue], many: Bool) -> String {
        var t = Translation()
        if case let .object(request)? = stub["request"] {
            if case let .string(method)? = request["method"], method.uppercased() != "ANY" {
                t.method = method
            } else {
                t.notes.append("\"method\": \"ANY\" or none (Catbird compares methods exactly: GET is shown; add one mock per method)")
            }
            if case let .string(url)? = request["url"] {
                t.url = PatternMatch(kind: .equal, value: url)
            } else if case let .string(path)? = request["urlPath"] {
                t.url = PatternMatch(kind: .regexp, value: "^" + escaped(path) + "(\\?.*)?$")
            } else if case let .string(expression)? = request["urlPattern"] {
                t.url = PatternMatch(kind: .regexp, value: "^(?:" + expression + ")$")
            } else if case let .string(expression)? = request["urlPathPattern"] {
                t.url = PatternMatch(kind: .regexp, value: "^(?:" + expression + ")(\\?.*)?$")
            }
            if request["queryParameters"] != nil {
                t.notes.append("\"queryParameters\" (a url pattern matches the query too: write it into the url)")
            }
            if case let .object(headers)? = request["headers"] {
                for (name, matcher) in headers.sorted(by: { $0.key < $1.key }) {
                    guard let match = wireMockString(matcher) else {
                        t.notes.append("the header matcher of \(JSONText.shortString(name))")
                        continue
                    }
                    t.headers[name] = match
                }
            }
            if case let .array(patterns)? = request["bodyPatterns"], let first = patterns.first {
                t.body = wireMockBody(first)
                if t.body == nil || patterns.count > 1 { t.notes.append("body patterns beyond one equalTo, contains, matches, equalToJson or matchesJsonPath") }
            }
        }
        if case let .object(response)? = stub["response"] {
            if case let .number(status)? = response["status"] { t.response.status = Int(status) }
            if case let .object(headers)? = response["headers"] {
                for (name, value) in headers {
                    switch value {
                    case let .string(text): t.response.headers[name] = text
                    case let .array(values): t.response.headers[name] = values.first.flatMap(text)
                    default: t.response.headers[name] = value.jsonText
                    }
                }
            }
            if let json = response["jsonBody"] {
                t.response.body = Data(json.jsonText.utf8)
            } else if case let .string(text)? = response["body"] {
                t.response.body = Data(text.utf8)
            } else if case let .string(base64)? = response["base64Body"] {
                t.response.body = Data(strictBase64: base64)
            }
            if response["bodyFileName"] != nil { t.notes.append("\"bodyFileName\" (send the file's bytes as \"body\", or use --mocks-dir)") }
            if case let .number(milliseconds)? = response["fixedDelayMilliseconds"] {
                t.response.delay = Int((milliseconds / 1000).rounded(.up))
            }
        }
        return t.reason("a WireMock stub mapping ({\"request\": …, \"response\": …})", many: many)
    }

    /// A WireMock string matcher (`{"equalTo": "v"}`, `matches`, `contains`) as a PatternMatch.
    private static func wireMockString(_ matcher: JSONValue) -> PatternMatch? {
        guard case let .object(members) = matcher else { return nil }
        if case let .string(value)? = members["equalTo"] { return PatternMatch(kind: .equal, value: value) }
        if case let .string(value)? = members["matches"] { return PatternMatch(kind: .regexp, value: "^(?:" + value + ")$") }
        if case let .string(value)? = members["contains"] { return PatternMatch(kind: .regexp, value: escaped(value)) }
        return nil
    }

    private static func wireMockBody(_ matcher: JSONValue) -> BodyPattern? {
        guard case let .object(members) = matcher else { return nil }
        if let json = members["equalToJson"] {
            if case let .string(text) = json { return BodyPattern(kind: .json, value: text) }
            return BodyPattern(kind: .json, value: json.jsonText)
        }
        if case let .string(path)? = members["matchesJsonPath"] { return BodyPattern(kind: .jsonPath, value: path) }
        if case let .string(value)? = members["equalTo"] { return BodyPattern(kind: .equal, value: value) }
        if case let .string(value)? = members["contains"] { return BodyPattern(kind: .contains, value: value) }
        if case let .string(value)? = members["matches"] { return BodyPattern(kind: .regexp, value: "^(?:" + value + ")$") }
        return nil
    }

    // MARK: - MockServer

    private static func reason(mockServer expectation: [String: JSONValue], many: Bool) -> String {
        var t = Translation()
        if case let .object(request)? = expectation["httpRequest"] {
            if case let .string(method)? = request["method"] { t.method = method }
            if case let .string(path)? = request["path"] { t.url = PatternMatch(kind: .regexp, value: "^" + escaped(path) + "(\\?.*)?$") }
            if request["queryStringParameters"] != nil {
                t.notes.append("\"queryStringParameters\" (a url pattern matches the query too: write it into the url)")
            }
            if case let .object(headers)? = request["headers"] {
                for (name, values) in headers {
                    if case let .array(list) = values, let first = list.first.flatMap(text) { t.headers[name] = PatternMatch(kind: .equal, value: first) }
                }
            }
            switch request["body"] {
            case let .string(text)?: t.body = BodyPattern(kind: .equal, value: text)
            case let .object(body)?:
                if let json = body["json"] {
                    if case let .string(text) = json { t.body = BodyPattern(kind: .json, value: text) } else { t.body = BodyPattern(kind: .json, value: json.jsonText) }
                } else if case let .string(path)? = body["jsonPath"] {
                    t.body = BodyPattern(kind: .jsonPath, value: path)
                } else if case let .string(text)? = body["string"] {
                    t.body = BodyPattern(kind: .equal, value: text)
                } else if case let .string(expression)? = body["regex"] {
                    t.body = BodyPattern(kind: .regexp, value: "^(?:" + expression + ")$")
                } else {
                    t.notes.append("the request body matcher")
                }
            default: break
            }
        }
        if case let .object(response)? = expectation["httpResponse"] {
            if case let .number(status)? = response["statusCode"] { t.response.status = Int(status) }
            if case let .object(headers)? = response["headers"] {
                for (name, values) in headers {
                    if case let .array(list) = values, let first = list.first.flatMap(text) { t.response.headers[name] = first }
                }
            }
            switch response["body"] {
            case let .string(text)?: t.response.body = Data(text.utf8)
            case let .object(body)?:
                if let json = body["json"] {
                    if case let .string(text) = json { t.response.body = Data(text.utf8) } else { t.response.body = Data(json.jsonText.utf8) }
                } else if case let .string(text)? = body["string"] {
                    t.response.body = Data(text.utf8)
                } else {
                    t.response.body = Data(JSONValue.object(body).jsonText.utf8)
                }
            default: break
            }
            if case let .object(delay)? = response["delay"], case let .number(value)? = delay["value"] {
                let unit: Double = switch delay["timeUnit"] {
                case .string("MILLISECONDS")?: 1000
                case .string("MINUTES")?: 1.0 / 60
                default: 1
                }
                t.response.delay = Int((value / unit).rounded(.up))
            }
        }
        if case let .object(times)? = expectation["times"], case let .number(remaining)? = times["remainingTimes"] {
            t.response.limit = Int(remaining)
        }
        return t.reason("a MockServer expectation ({\"httpRequest\": …, \"httpResponse\": …})", many: many)
    }

    // MARK: - Helpers

    private static func text(_ value: JSONValue) -> String? {
        if case let .string(text) = value { return text }
        return value.jsonText
    }

    /// `literal` as an ICU regular expression matching exactly it.
    private static func escaped(_ literal: String) -> String {
        var out = ""
        for character in literal {
            if "\\^$.|?*+()[]{}".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
