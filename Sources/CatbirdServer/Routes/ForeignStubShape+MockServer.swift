import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// A MockServer expectation translated by README.md's "Coming from WireMock or MockServer"
/// table; every key of the expectation, its request and its response that is not translated is
/// named under "Not carried over" (tester finding T18A-F2).
extension ForeignStubShape {
    static func reason(mockServer expectation: [String: JSONValue], many: Bool) -> String {
        var t = Translation()
        t.noteUnread(expectation, read: ["httpRequest", "httpResponse", "times"], ignored: ["id"], hints: ["priority": priorityHint])
        t.noURL = "the expectation has no \"path\" (MockServer then matches every path)"
        if case let .object(request)? = expectation["httpRequest"] {
            if case let .string(method)? = request["method"] {
                t.method = method
            } else {
                t.notes.append("\"method\": none (MockServer then matches every method; Catbird compares methods exactly: GET is shown; add one mock per method)")
            }
            var read: Set<String> = ["method", "headers", "body"]
            if case let .string(path)? = request["path"] {
                t.url = PatternMatch(kind: .regexp, value: "^" + escaped(path) + "(\\?.*)?$")
                read.insert("path")
            } else if request["path"] != nil {
                t.noURL = "its \"path\" is not a string"
            }
            if case let .object(headers)? = request["headers"] {
                for (name, values) in headers.sorted(by: { $0.key < $1.key }) {
                    if case let .array(list) = values, let first = list.first.flatMap(text) {
                        t.headers[name] = PatternMatch(kind: .equal, value: first)
                    } else {
                        t.notes.append("the header matcher of \(JSONText.shortString(name))")
                    }
                }
            } else if request["headers"] != nil {
                t.notes.append("\"headers\" (only the {\"name\": [\"value\"]} form is translated)")
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
            t.noteUnread(request, read: read, hints: [
                "queryStringParameters": queryHint,
                "cookies": cookiesHint,
            ])
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
            t.noteUnread(response, read: ["statusCode", "headers", "body", "delay"])
        }
        if case let .object(times)? = expectation["times"], case let .number(remaining)? = times["remainingTimes"] {
            t.response.limit = Int(remaining)
        }
        return t.reason("a MockServer expectation ({\"httpRequest\": …, \"httpResponse\": …})", many: many)
    }
}
