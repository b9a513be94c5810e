import CatbirdSupport
@_spi(Server) import CatbirdWire
import Foundation

/// The parts of a MockServer expectation the response and its count come from, translated by
/// README.md's "Coming from WireMock or MockServer" table, what is not carried over named
/// (tester finding tester46a-F5, F6, F10).
extension ForeignStubShape.Translation {
    /// A MockServer response `body` object: `{"type": "STRING", "string": …}`, `JSON` (`json`),
    /// `XML` (`xml`), `BINARY` (`base64Bytes`, padded base64), with its `contentType` sent as
    /// `Content-Type` unless the response's headers have one; an object without `type` is its
    /// `json` or `string`, else itself as a JSON body. Another type is named, not served as its
    /// wrapper's JSON text (an image answered `{"base64Bytes":"AAEC",…}`).
    mutating func translateMockServerResponseBody(_ body: [String: JSONValue]) {
        var read: Set<String> = ["type", "contentType", "rawBytes"]
        switch body["type"] {
        case nil:
            if let json = body["json"] {
                response.body = Data(ForeignStubShape.text(json).utf8)
                read.insert("json")
                if let note = ForeignStubShape.inexactJSONBody("json", json) { notes.append(note) }
            } else if case let .string(text)? = body["string"] {
                response.body = Data(text.utf8)
                read.insert("string")
            } else {
                response.body = Data(JSONValue.object(body).jsonText.utf8)
                return
            }
        case .string("STRING")?, .string("JSON")?, .string("XML")?:
            let key = body["type"] == .string("STRING") ? "string" : body["type"] == .string("JSON") ? "json" : "xml"
            read.insert(key)
            guard let value = body[key] else {
                notes.append("the response body of type \(JSONText.string(body["type"].map(ForeignStubShape.text) ?? "")) without \(JSONText.string(key))")
                return
            }
            response.body = Data(ForeignStubShape.text(value).utf8)
            if key == "json", let note = ForeignStubShape.inexactJSONBody("json", value) { notes.append(note) }
        case .string("BINARY")?:
            read.insert("base64Bytes")
            guard case let .string(base64)? = body["base64Bytes"], let bytes = Data(strictBase64: base64) else {
                notes.append("the response body's \"base64Bytes\" (not padded base64, RFC 4648 §4)")
                return
            }
            response.body = bytes
        case let type?:
            notes.append("the response body of type \(JSONText.shortText(type.jsonText)) (translated: STRING, JSON, XML, BINARY)")
            return
        }
        if let contentType = body["contentType"] {
            if case let .string(value) = contentType, !responseFields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
                addResponseHeader("Content-Type", [value])
            } else if case .string = contentType {
                notes.append("the response body's \"contentType\" (the response's headers have a Content-Type)")
            } else {
                notes.append("the response body's \"contentType\" (not a string)")
            }
        }
        for key in body.keys.sorted() where !read.contains(key) {
            notes.append("the response body's \(JSONText.string(key))")
        }
    }

    /// MockServer's `delay`, `{"timeUnit": T, "value": n}` with T a Java `TimeUnit`, as a delay
    /// rounded up to whole seconds (`"MICROSECONDS"`, `"HOURS"` … were read as seconds: 1,500
    /// µs was 25 minutes); an unknown unit or a value that is not a number is named.
    mutating func translateMockServerDelay(_ delay: JSONValue) {
        guard case let .object(members) = delay else {
            notes.append("the response's \"delay\" (not {\"timeUnit\": …, \"value\": …})")
            return
        }
        guard case let .string(unit)? = members["timeUnit"], let seconds = Self.timeUnitSeconds[unit] else {
            let unit = members["timeUnit"].map { JSONText.shortText($0.jsonText) } ?? "none"
            notes.append("the response's \"delay\" (its \"timeUnit\" \(unit) is none of \(Self.timeUnitNames))")
            return
        }
        guard let value = ForeignStubShape.number(members["value"]) else {
            notes.append("the response's \"delay\" (its \"value\" is not a number)")
            return
        }
        if let note = ForeignStubShape.changedNumber("value", members["value"], value * seconds, fractions: true, negative: false) {
            notes.append("the response's \"delay\"'s " + note + ": no delay is shown")
        } else {
            response.delay = ForeignStubShape.whole(value * seconds, .up)
        }
        for key in members.keys.sorted() where key != "timeUnit" && key != "value" {
            notes.append("the response's \"delay\"'s \(JSONText.string(key))")
        }
    }

    /// Java's `TimeUnit` names, in seconds.
    private static let timeUnitSeconds: [String: Double] = [
        "NANOSECONDS": 1e-9, "MICROSECONDS": 1e-6, "MILLISECONDS": 1e-3, "SECONDS": 1, "MINUTES": 60, "HOURS": 3_600, "DAYS": 86_400,
    ]
    private static let timeUnitNames = timeUnitSeconds.sorted { $0.value < $1.value }.map(\.key).joined(separator: ", ")

    /// MockServer's `times`, `{"remainingTimes": n, "unlimited": b}`, as a limit: none when
    /// unlimited (`Times.unlimited()` is `{"remainingTimes": 0, "unlimited": true}`: it was a
    /// limit of 0, which answers once); `n` of 1 or more as the limit; 0 or less named.
    mutating func translateMockServerTimes(_ times: JSONValue) {
        guard case let .object(members) = times else {
            notes.append("\"times\" (not {\"remainingTimes\": …, \"unlimited\": …})")
            return
        }
        for key in members.keys.sorted() where key != "remainingTimes" && key != "unlimited" {
            notes.append("\"times\"'s \(JSONText.string(key))")
        }
        switch members["unlimited"] {
        case .bool(true)?: return
        case .bool(false)?, nil: break
        case let other?: notes.append("\"times\"'s \"unlimited\": \(JSONText.shortText(other.jsonText)) (not true or false)")
        }
        guard let remaining = members["remainingTimes"] else { return }
        guard let count = ForeignStubShape.number(remaining) else {
            notes.append(ForeignStubShape.notANumber("remainingTimes", remaining))
            return
        }
        if let note = ForeignStubShape.changedNumber("remainingTimes", remaining, count, fractions: false, negative: true) {
            notes.append(note + ": no limit is shown")
            return
        }
        let limit = ForeignStubShape.whole(count)
        if limit >= 1 {
            response.limit = limit
        } else {
            notes.append("\"remainingTimes\": \(limit) without \"unlimited\" (a Catbird limit answers one request at least): no limit is shown")
        }
    }
}
