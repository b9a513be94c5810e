import CatbirdSupport
import CatbirdWire

/// Where two JSON values first differ, for a person (try9a F7: a `json` body near miss showed
/// both bodies cut after 200 bytes, long before the difference): the path in SQLite's JSON
/// path syntax, the one `jsonPath` patterns use (`$.items[33].qty`, `$."a key"`), and the two
/// values there, each as JSON cut after ``shownLength`` bytes.
///
/// Objects are compared key by key in sorted key order (a key the request lacks, then one it
/// has extra), arrays item by item and then by length; numbers by value, strings and keys
/// exactly, as ``ExactJSON``'s equality compares them (`1e2` equals `100`, `"é"` is not `"e\u0301"`).
public struct JSONDifference: Sendable, Equatable {
    /// Where: `$` for the whole value.
    public var path: String
    /// The pattern's value there, as JSON; nil when the pattern has no such key.
    public var expected: String?
    /// The request's value there, as JSON; nil when the request has no such key.
    public var actual: String?
    /// Whether the path goes through a key holding `"`: SQLite's JSON paths quote a key with `"`
    /// and have no escape for one inside it, so no `jsonPath` can name that key (tester finding
    /// tester28a-F6: the hint printed `$.x."\"q"`, which `update` then refused).
    public var unnameable = false

    /// JSON bytes of a value shown at most: 60.
    public static let shownLength = 60

    /// `at $.items[33].qty: expected 33, got 99`; `at $.note: expected "x", got nothing (no such
    /// key)`; `at $.extra: expected nothing (no such key), got 1`.
    public var description: String {
        "at \(path): expected \(expected ?? "nothing (no such key)"), got \(actual ?? "nothing (no such key)")"
            + (unnameable ? " (a key there holds \", shown escaped: SQLite's JSON paths cannot name it, so no jsonPath can test it)" : "")
    }

    /// The first difference between `expected` and `actual`, nil when they are equal.
    static func first(_ expected: ExactJSON, _ actual: ExactJSON) -> JSONDifference? {
        first(expected, actual, path: "$", unnameable: false)
    }

    private static func first(_ expected: ExactJSON, _ actual: ExactJSON, path: String, unnameable: Bool) -> JSONDifference? {
        switch (expected, actual) {
        case let (.object(expectedFields), .object(actualFields)):
            for (key, expectedValue) in expectedFields.sorted(by: { $0.key.precedes($1.key) }) {
                let through = unnameable || key.text.utf8.contains(UInt8(ascii: "\""))
                guard let actualValue = actualFields[key] else {
                    // A key the body spells in another Unicode normalization form (tester
                    // finding tester45a-F2: "expected 1, got nothing (no such key)" of a body
                    // that visibly had it).
                    let twin = actualFields.keys.first { $0.text == key.text }
                    return JSONDifference(
                        path: path + member(key.text), expected: shown(expectedValue),
                        actual: twin.map { "nothing (the body has the key \(escapedPastASCII(JSONValue.string($0.text).jsonText)), "
                            + "\(escapedPastASCII(JSONValue.string(key.text).jsonText)) in another Unicode normalization form: keys are "
                            + "compared code point by code point)" },
                        unnameable: through)
                }
                if let found = first(expectedValue, actualValue, path: path + member(key.text), unnameable: through) {
                    return found
                }
            }
            guard let extra = actualFields.keys.filter({ expectedFields[$0] == nil }).min(by: { $0.precedes($1) }) else { return nil }
            return JSONDifference(
                path: path + member(extra.text), expected: nil, actual: shown(actualFields[extra]!),
                unnameable: unnameable || extra.text.utf8.contains(UInt8(ascii: "\"")))
        case let (.array(expectedItems), .array(actualItems)):
            for (index, (expectedItem, actualItem)) in zip(expectedItems, actualItems).enumerated() {
                if let found = first(expectedItem, actualItem, path: path + "[\(index)]", unnameable: unnameable) { return found }
            }
            guard expectedItems.count != actualItems.count else { return nil }
            return JSONDifference(
                path: path, expected: "\(expectedItems.count) items", actual: "\(actualItems.count) items", unnameable: unnameable)
        default:
            guard expected != actual else { return nil }
            let (shownExpected, shownActual) = shownPair(expected, actual)
            return JSONDifference(path: path, expected: shownExpected, actual: shownActual, unnameable: unnameable)
        }
    }

    /// `expected` and `actual`, two values that differ, as a reason shows them (``shown(_:)``);
    /// two strings that are canonically equivalent (`"café"` in NFC and NFD) are written with
    /// `\u` escapes past ASCII, so the difference shows, and the actual one says so (tester
    /// findings tester42a-F4, and tester45a-F2 for a `jsonPath`'s `equalTo` and for strings cut
    /// before their difference).
    static func shownPair(_ expected: ExactJSON, _ actual: ExactJSON) -> (expected: String, actual: String) {
        guard case let .string(left) = expected, case let .string(right) = actual, left.text == right.text else {
            return (shown(expected), shown(actual))
        }
        return (
            escapedPastASCII(shown(expected)),
            escapedPastASCII(shown(actual)) + " (the same text in another Unicode normalization form: JSON strings are "
                + "compared code point by code point)")
    }

    /// JSON `text` with each UTF-16 code unit past ASCII written `\uXXXX` (still the same JSON).
    static func escapedPastASCII(_ text: String) -> String {
        var out = ""
        for unit in text.utf16 {
            if unit < 0x80 {
                out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            } else {
                let hex = String(unit, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    /// `.key` for a key of letters, digits and `_` not starting with a digit, else `."key"`
    /// (SQLite's JSON path quoting).
    static func member(_ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            && !(0x30...0x39).contains(key.utf8.first!)
        return plain ? "." + key : "." + JSONValue.string(key).jsonText
    }

    /// `value` as JSON, cut after ``shownLength`` bytes (`… (N bytes)`).
    static func shown(_ value: ExactJSON) -> String {
        JSONText.cutWithLength(value.jsonText, maxBytes: shownLength)
    }
}
