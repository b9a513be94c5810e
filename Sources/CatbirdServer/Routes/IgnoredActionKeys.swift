import Foundation

/// What a `removeAll` with keys besides `type` answers beside its 204: the contract keeps
/// Catbird 0.11's rule that a `removeAll` ignores every other key
/// (../shared/spec/catbird-protocol.md §1.1; tester finding tester34a-F1), so the action runs
/// (every mock of the tenant is removed, whatever a `pattern` key says) and the header
/// ``RemovedNothing/header`` names what was ignored (a 204 has no body).
enum IgnoredActionKeys {
    /// The warning for a `removeAll` action `body` (its JSON object), nil when it has no key
    /// but `type`. ASCII only, as a header value is (``asciiQuoted(_:)``).
    static func warning(forRemoveAll body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        let ignored = object.keys.filter { $0 != "type" }.sorted()
        guard !ignored.isEmpty else { return nil }
        let shown = ignored.prefix(5).map(asciiQuoted)
        let more = ignored.count > 5 ? " and \(ignored.count - 5) more" : ""
        return "removeAll takes no key but \"type\": ignored \(shown.joined(separator: ", "))\(more) (Catbird 0.11's rule); "
            + "every mock of this tenant was removed (a remove with a pattern removes one mock)"
    }

    /// Escaped text shown of a key at most: 40 bytes.
    static let shownBytes = 40

    /// `key` as a JSON string literal in ASCII only: `"` and `\` escaped, every other byte
    /// outside printable ASCII as `\uXXXX` (UTF-16, as JSON escapes it), cut after
    /// ``shownBytes`` bytes of that text with `...` and the key's length in UTF-8 bytes
    /// (`"aaaa..." (300 bytes)`). Tester finding tester36b-F1: a key holding `"` or a byte
    /// outside ASCII was shown as `"…"`, itself three UTF-8 bytes in a header value.
    static func asciiQuoted(_ key: String) -> String {
        var text = ""
        for unit in key.utf16 {
            if text.utf8.count >= shownBytes { return "\"\(text)...\" (\(key.utf8.count) bytes)" }
            switch unit {
            case 0x22: text += "\\\""
            case 0x5C: text += "\\\\"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: text += "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count) + String(unit, radix: 16)
            }
        }
        return "\"\(text)\""
    }
}
