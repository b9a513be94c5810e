import CatbirdSupport
import Foundation

/// A request-target's query string as `(name, value)` pairs.
enum QueryParameters {
    /// The pairs in order, names and values percent-decoded (`+` read as a space, as HTML forms
    /// send it); a pair without `=` has the value "". Empty pairs (`a=1&&b=2`) are skipped.
    static func pairs(_ query: Substring) -> [(name: String, value: String)] {
        decodedPairs(query).map { ($0.name, $0.value) }
    }

    /// ``pairs(_:)``, each with whether its name or value was kept as sent because its decoded
    /// bytes are not UTF-8 (`%E9`), which then reads as a decoded `%25E9` does.
    static func decodedPairs(_ query: Substring) -> [(name: String, value: String, keptAsSent: Bool)] {
        split(query, at: UInt8(ascii: "&")).map { pair in
            let parts = split(pair, at: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : (text: "", keptAsSent: false)
            return (name.text, value.text, name.keptAsSent || value.keptAsSent)
        }
    }

    /// `text` split at each `separator` byte (an ASCII byte), not at characters: a combining
    /// mark right after the separator (`&` then U+0301) makes one character of the two, which
    /// a split by characters never sees as the separator (tester finding tester35a-F5: `?a=1&́b=2`
    /// was one pair, while the HAR entry's `url` had two).
    static func split(
        _ text: Substring, at separator: UInt8, maxSplits: Int = .max, omittingEmptySubsequences: Bool = true
    ) -> [Substring] {
        text.utf8.split(separator: separator, maxSplits: maxSplits, omittingEmptySubsequences: omittingEmptySubsequences)
            .map { Substring($0) }
    }

    /// `value` read as a whole number as the docs write one: one or more ASCII digits, no sign
    /// and no space; nil for any other text, and for digits past `Int64` (the caller tells those
    /// apart with ``isDigits(_:)`` to say "too large"). Every number of a query and of a journal
    /// entry's path is read so (a finding in tester38a's first draft: Swift's `Int("+5")` reads a sign, so
    /// `before=%2B5`, `limit=%2B5` and `/requests/+7` were taken while `wait=%2B1` was refused).
    static func wholeNumber(_ value: some StringProtocol) -> Int64? {
        guard isDigits(value) else { return nil }
        return Int64(value)
    }

    /// The 400 for `name`'s refused `value`: `'since' (99999999999999999999) is too large (at most
    /// 9223372036854775807)` for digits past `Int64` (tester finding tester39a-F6: they were told
    /// to be "a whole number >= 0", which they are), else `otherwise` (a value out of the
    /// parameter's range included, such as a `limit` of 0).
    static func refusal(_ name: String, _ value: String, otherwise: String) -> APIError {
        isDigits(value) && wholeNumber(value) == nil
            ? .badRequest("'\(name)' (\(JSONText.shortText(value))) is too large (at most \(Int64.max))")
            : .badRequest(otherwise)
    }

    /// Whether `value` is one or more ASCII digits and nothing else.
    static func isDigits(_ value: some StringProtocol) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// `raw` percent-decoded with `+` read as a space: each valid escape (`%` and two hex
    /// digits) decoded, a `%` that starts none kept as itself, as the HAR entry's `url` reads it
    /// (tester finding tester34a-F5: `ok%20then%` was kept whole, `%20` and all); as sent when
    /// the decoded bytes are not UTF-8 (`%E9`).
    private static func decode(_ raw: Substring) -> (text: String, keptAsSent: Bool) {
        // As sent, `+` too (tester finding tester35a-F1: `%e9+%41` was given as `%e9 %41`).
        PercentDecoding.text(raw, plusAsSpace: true, stray: .kept).map { ($0, false) } ?? (String(raw), true)
    }

    /// `raw` percent-decoded with `+` read as a space; nil when it is not valid
    /// percent-encoding of UTF-8.
    private static func strictDecode(_ raw: Substring) -> String? {
        PercentDecoding.text(raw, plusAsSpace: true, stray: .refused)
    }

    /// ``pairs(_:)`` for a control route's query, refusing one that ``pairs(_:)`` would read
    /// otherwise than it was written: a name or value that is not valid percent-encoding of
    /// UTF-8 (`%ZZ`, `%FF`; read as the literal text otherwise), and a name given twice
    /// (`limit=1&limit=2`; the last one would win), as a repeated JSON key is refused
    /// (docs/protocol.md#query-parameters). Each part is decoded once.
    /// - Throws: 400 naming the parameter.
    static func wellFormedPairs(_ query: Substring) throws(APIError) -> [(name: String, value: String)] {
        var seen = Set<String>()
        var result: [(name: String, value: String)] = []
        for pair in split(query, at: UInt8(ascii: "&")) {
            let parts = split(pair, at: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = strictDecode(parts[0]), let value = parts.count > 1 ? strictDecode(parts[1]) : ""
            else {
                throw .badRequest(
                    "query parameter \(JSONText.string(pair.utf8Prefix(100))) is not valid percent-encoded UTF-8 "
                        + "(a '%' must be followed by two hex digits, and the bytes must be UTF-8)")
            }
            guard seen.insert(name).inserted else {
                throw .badRequest("query parameter \(JSONText.shortString(name)) is given more than once: give it once")
            }
            result.append((name, value))
        }
        return result
    }

    /// The 400 for a query parameter `name` that a control route does not take: `unknown query
    /// parameter "foo" (known: since, before, …)`, the name cut to 64 bytes with its length
    /// (``CatbirdSupport/JSONText/shortString(_:maxBytes:)``, as every echoed name: a
    /// 6,000-byte name was echoed whole; tester finding T19B-F16).
    /// - Parameter known: what follows in parentheses: `known: limit`, `this route takes none`.
    static func unknown(_ name: String, known: String) -> APIError {
        .badRequest("unknown query parameter \(JSONText.shortString(name)) (\(known))")
    }
}
