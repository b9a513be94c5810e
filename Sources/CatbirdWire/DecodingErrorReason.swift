import CatbirdSupport
import Foundation

extension DecodingError {
    /// A one-line reason for a failed decode of a wire type, naming the field by its coding
    /// path in the user's words, for the `{"error": true, "reason": …}` answer
    /// (docs/protocol.md#errors). Never a Swift debug description. Examples:
    /// - `missing key 'pattern.url'`
    /// - `'response.status' must be a number` / `'pattern.method' must be a string, not null`
    /// - `response.body is not valid base64`
    /// - `unknown action type "x" (expected "update", "remove" or "removeAll")`
    /// - `malformed JSON: …`
    @_spi(Server) public var readableReason: String {
        switch self {
        case let .keyNotFound(key, context):
            return "missing key \(CodingPathText.quoted(context.codingPath + [key], orElse: key.stringValue))"
        case let .typeMismatch(type, context):
            return "\(Self.subject(context.codingPath)) must be \(Self.expectation(type))" + Self.shapeHint(context.codingPath)
        case let .valueNotFound(type, context):
            return "\(Self.subject(context.codingPath)) must be \(Self.expectation(type)), not null"
        case let .dataCorrupted(context):
            if let keys = context.underlyingError as? UnknownWireKeys {
                return keys.reason()
            }
            if context.underlyingError is ReadableDecodingReason {
                return context.debugDescription
            }
            if context.codingPath.isEmpty {
                var detail = context.debugDescription
                if let underlying = context.underlyingError,
                   let debug = (underlying as NSError).userInfo[NSDebugDescriptionErrorKey] as? String {
                    detail = debug
                }
                if detail.hasSuffix(".") { detail.removeLast() }
                return "malformed JSON: \(detail)"
            }
            return "\(CodingPathText.quoted(context.codingPath, orElse: "")): \(context.debugDescription)"
        @unknown default:
            return "the JSON body does not have the expected shape"
        }
    }

    /// What to write instead, for the shapes a newcomer gets wrong most (tester finding
    /// tester30a-F3: the reason named the key but not the shape): a url or header pattern is a
    /// ``PatternMatch`` object, not its value; a response header is one string, a field sent twice
    /// two spellings of its name; a response body is its bytes in base64. Empty for other paths.
    private static func shapeHint(_ path: [any CodingKey]) -> String {
        let keys = path.map(\.stringValue)
        guard keys.first == "pattern" || keys.first == "response" else { return "" }
        if keys.count == 2, keys[0] == "pattern", keys[1] == "url" {
            return #" such as {"kind": "equal", "value": "/api/users"} (kinds: equal, wildcard, regexp)"#
        }
        if keys.count == 3, keys[0] == "pattern", keys[1] == "headers" {
            return #" such as {"kind": "equal", "value": "application/json"} (kinds: equal, wildcard, regexp)"#
        }
        if keys.count == 3, keys[0] == "response", keys[1] == "headers" {
            // Tester finding tester58b-F4: a WireMock-style array got only "must be a string".
            return #": one string per name (Catbird 0.11's shape); to send a field twice, give its name in two spellings, "#
                + #"{"Set-Cookie": "a=1", "set-cookie": "b=2"} (docs/protocol.md, ResponseMock)"#
        }
        if keys == ["response", "body"] {
            return #": the body's bytes in base64 (for the JSON {"a":1} send "eyJhIjoxfQ==")"#
        }
        return ""
    }

    private static func subject(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the JSON body" : CodingPathText.quoted(path, orElse: "")
    }

    private static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is any BinaryInteger.Type, is any BinaryFloatingPoint.Type, is Decimal.Type:
            return "a number"
        case is String.Type:
            return "a string"
        case is Bool.Type:
            return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Dictionary") || name.hasPrefix("[") && name.contains(":") { return "an object" }
            if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
            return "a \(name)"
        }
    }
}

/// Marks a `DecodingError.dataCorrupted` raised by this module whose `debugDescription` is already a
/// complete, human-readable reason (including the coding path), so ``Swift/DecodingError/readableReason``
/// returns it verbatim.
struct ReadableDecodingReason: Error, Sendable {}

extension DecodingError {
    /// A `dataCorrupted` error at `path` whose debug description `reason` is shown to users as is.
    static func readable(at path: [any CodingKey], _ reason: String) -> DecodingError {
        .dataCorrupted(Context(codingPath: path, debugDescription: reason, underlyingError: ReadableDecodingReason()))
    }
}

/// Formatting of coding paths and strings inside human-readable reasons.
enum CodingPathText {
    /// `pattern.headers.Accept.kind`; array positions (JSONDecoder's `Index N` keys) as `[N]`;
    /// a key longer than 64 bytes cut with `…` (``CatbirdSupport/JSONText/shortText(_:maxBytes:)``:
    /// a header name of 1 MB must not swamp the reason, docs/protocol.md#errors).
    static func dotted(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += JSONText.shortText(key.stringValue)
            }
        }
        return text
    }

    /// `'pattern.url'`, or `'fallback'` for an empty path.
    static func quoted(_ path: [any CodingKey], orElse fallback: String) -> String {
        let text = dotted(path)
        return "'\(text.isEmpty ? fallback : text)'"
    }

    /// `value` as a JSON string literal, for error reasons: cut to its first 64 bytes with `…`
    /// and its length when longer (``CatbirdSupport/JSONText/shortString(_:maxBytes:)``; an action
    /// `type` or an unknown key of 100,000 bytes was quoted whole, tester finding T15A-F3).
    static func jsonQuoted(_ value: String) -> String {
        JSONText.shortString(value)
    }
}

/// A closed set of names on the wire (a matcher's `kind`), read with a reason that lists them.
protocol WireName: RawRepresentable, CaseIterable where RawValue == String {}

extension WireName {
    /// Reads one of the names.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the coding path and every allowed value
    ///   (`'pattern.url.kind' must be "equal", "wildcard" or "regexp", not "glob"`) for any
    ///   other string; `DecodingError.typeMismatch` for a non-string.
    static func decodeName(from decoder: any Decoder) throws -> Self {
        let raw = try decoder.singleValueContainer().decode(String.self)
        if let name = Self(rawValue: raw) { return name }
        let names = allCases.map { CodingPathText.jsonQuoted($0.rawValue) }
        let listed = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        throw DecodingError.readable(
            at: decoder.codingPath,
            "\(CodingPathText.quoted(decoder.codingPath, orElse: "kind")) must be \(listed), not \(CodingPathText.jsonQuoted(raw))")
    }
}
