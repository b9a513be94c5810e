import CatbirdDomain
import CatbirdMatching
import CatbirdSupport
import CatbirdWire
import Foundation

/// The 404 reason's hint when the closest mock's `equal` url differs from the request-target
/// only in percent-encoding, or its `wildcard` or `regexp` url holds characters past ASCII
/// that the request-target sends percent-encoded (docs/matching.md#near-misses): `equal` compares the target as sent,
/// byte for byte, so `/api/bé` in a mock never matches what a client sends for it
/// (`/api/b%C3%A9` from URLSession, `/api/b%c3%a9` from curl; tester finding try6a F10).
enum PercentEncodingHint {
    /// `its url differs only in percent-encoding (both are "/api/bé" decoded): equal compares the
    /// request-target as sent, so write the mock's url as the app sends it, "/api/b%C3%A9" (a
    /// regexp url also ignores the case of %XX)`; nil when `mock`'s url is not `equal`, is the
    /// target itself, or is not an equivalent spelling of the target (``equivalentForm(_:)``,
    /// RFC 3986 section 6.2.2: an encoded reserved character, `%2B` for `+`, `%26` for `&`, is
    /// data where the plain one is structure, so the two are different URLs; tester finding
    /// tester42a-F1: the hint told an author to copy an app's unencoded `+` into the mock).
    static func hint(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL  // in place: no copy of the compiled pattern
        if url.kind != .equal { return patternHint(mock, target: target) }
        guard url.value != target, mayDiffer(url.value) || mayDiffer(target),
              let form = equivalentForm(url.value), let targetForm = equivalentForm(target) else { return nil }
        let decoded = String(decoding: form, as: UTF8.self)
        if form == targetForm {
            return "its url differs only in percent-encoding (both are \(JSONText.shortString(decoded)) decoded): equal compares the "
                + "request-target as sent, so write the mock's url as the app sends it, \(JSONText.shortString(target)) "
                + "(a regexp url also ignores the case of %XX)"
        }
        // The same characters once decoded in another Unicode normalization (Swift's `==` is
        // canonical equivalence): an NFD name from an iOS file against an NFC mock (tester
        // finding tester62a-F4: no hint, while a wildcard's 404 named it).
        let targetDecoded = String(decoding: targetForm, as: UTF8.self)
        guard decoded == targetDecoded else { return nil }
        return "its url differs only in Unicode normalization and percent-encoding (both are \(JSONText.shortString(decoded)) "
            + "decoded; this request sends \(nonASCIIExamples(targetDecoded)), the mock holds \(nonASCIIExamples(decoded)): the "
            + "same characters, other bytes): equal compares the request-target as sent, so write the mock's url as the app "
            + "sends it, \(JSONText.shortString(target))"
    }

    /// The hint for a `wildcard` or `regexp` url holding characters past ASCII when the target,
    /// its bytes past ASCII decoded, matches it: `its url pattern holds "é" (%C3%A9), which this
    /// request sends percent-encoded as its UTF-8 bytes: a wildcard url is matched against the
    /// request-target as sent, so write it "/menu/caf%C3%A9*"` (tester findings tester58b-F3,
    /// tester60b-F4: the 404 said only "url differs"). When it matches only the decoded target in
    /// the other Unicode normalization (a decomposed `é` from a macOS file, a precomposed one
    /// from the app), that is named and the advice is for the request's form. Nil otherwise:
    /// the request holds some other character (tester finding tester61a-F3: `/menu/caf%C3%A8`
    /// was told it sent the pattern's "é", and an NFD pattern was told to write what the NFC
    /// request still does not match).
    private static func patternHint(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard mayDiffer(url.value), url.value.utf8.contains(where: { $0 >= 0x80 }), holdsEncodedNonASCII(target),
              let decoded = decodingNonASCII(target) else { return nil }
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(5))
        func matches(_ text: String) -> Bool { mock.pattern.urlMatches(NearMissProbe(method: "GET", target: text), until: deadline) }
        if matches(decoded) {
            return "its url pattern holds \(nonASCIIExamples(url.value)), which this request sends percent-encoded as its UTF-8 bytes: "
                + "a \(url.kind.rawValue) url is matched against the request-target as sent, so \(encodedAdvice(url))"
        }
        // The request's form matched in the other normalization, and the pattern written in the request's.
        let forms = [
            (decoded.precomposedStringWithCanonicalMapping, url.value.decomposedStringWithCanonicalMapping),
            (decoded.decomposedStringWithCanonicalMapping, url.value.precomposedStringWithCanonicalMapping),
        ]
        // Compared as bytes: Swift's `==` holds the two normalizations equal.
        for (form, patternInRequestForm) in forms where !form.utf8.elementsEqual(decoded.utf8) && matches(form) {
            let requestForm = PatternMatch(kind: url.kind, value: patternInRequestForm)
            return "its url pattern holds \(nonASCIIExamples(url.value)), and this request sends \(nonASCIIExamples(decoded)) "
                + "percent-encoded: the same characters in another Unicode normalization (other bytes), and a "
                + "\(url.kind.rawValue) url is matched against the request-target as sent, so \(encodedAdvice(requestForm))"
        }
        return nil
    }

    /// `target` with each `%XX` of a byte past ASCII decoded (the ASCII ones kept as sent); nil
    /// when the result is not UTF-8.
    private static func decodingNonASCII(_ target: String) -> String? {
        PercentDecoding.bytes(target, decoding: { $0 >= 0x80 }, uppercasingKept: false, stray: .kept)
            .flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// What to write instead of a `wildcard` or `regexp` url with characters past ASCII: the
    /// wildcard with each such byte percent-encoded (`write it "/menu/caf%C3%A9*"`), or, for a
    /// regexp (where a class or a quantifier would then apply to one byte), each character as its bytes.
    static func encodedAdvice(_ url: PatternMatch) -> String {
        let classExample = "a class holding one as alternatives"
        guard url.kind == .wildcard else {
            // A case-sensitive expression (`(?-i)`, every WireMock translation's) does not
            // ignore the case of %XX (tester finding tester62a-F3).
            let caseNote = url.value.contains("(?-i)") ? "" : " (a regexp also ignores the case of %XX)"
            let classNote = holdsNonASCIIInAClass(url.value) ? ", and \(classExample) ([éè] as (?:%C3%A9|%C3%A8))" : ""
            return "write each such character as its percent-encoded bytes" + classNote + caseNote
        }
        let characters = Array(url.value)
        var out = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                out.append(character)
                out += encodedNonASCII(characters[index + 1])
                index += 2
                continue
            }
            // A class of characters past ASCII matches one character, and one byte once encoded:
            // its members as alternatives instead (tester finding tester62a-F2: `/a/[éè]x` was told
            // to become `/a/[%C3%A9%C3%A8]x`, a class of six bytes).
            if character == "[", let close = characters[(index + 1)...].firstIndex(of: "]"), close > index + 1,
               characters[(index + 1)..<close].contains(where: { !$0.isASCII }) {
                let members = characters[(index + 1)..<close]
                // A negated class matches other characters: alternatives would turn it round
                // (tester finding tester63a-F6).
                if members.first == "!" || members.first == "^" { return "write each such character as its percent-encoded bytes" }
                guard !members.contains(where: { "-!^\\[".contains($0) }) else {
                    return "write each such character as its percent-encoded bytes, and \(classExample) ({%C3%A9,%C3%A8} for [éè])"
                }
                out += "{" + members.map(encodedNonASCII).joined(separator: ",") + "}"
                index = close + 1
                continue
            }
            out += encodedNonASCII(character)
            index += 1
        }
        return "write it \(JSONText.shortString(out))"
    }

    /// `character` with its bytes past ASCII percent-encoded (an ASCII part kept).
    private static func encodedNonASCII(_ character: Character) -> String {
        var encoded: [UInt8] = []
        for byte in String(character).utf8 {
            if byte >= 0x80 { ASCIIByte.appendPercentEncoded(byte, to: &encoded) } else { encoded.append(byte) }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Whether a bracketed class of the regular expression `expression`, not a negated one (whose
    /// alternatives would turn it round: tester finding tester63a-F6), holds a character past
    /// ASCII (read by ``ICURegexTokens``: escapes, quotes, nested classes and comments as ICU reads them).
    private static func holdsNonASCIIInAClass(_ expression: String) -> Bool {
        ICURegexTokens(expression).tokens.contains { token in
            guard case let .inClass(text, negated) = token else { return false }
            return !negated && text.unicodeScalars.contains { !$0.isASCII }
        }
    }

    /// The first three distinct characters past ASCII in `text`, each with its encoding:
    /// `"é" (%C3%A9)`, joined by `, `; an ASCII part of a character stays as it is (a decomposed
    /// `é`: `"é" (e%CC%81)`, as a client sends it; tester finding tester61a-F3).
    static func nonASCIIExamples(_ text: String) -> String {
        var seen: [Character] = []
        for character in text where !character.isASCII && !seen.contains(character) {
            seen.append(character)
            if seen.count == 3 { break }
        }
        return seen.map { "\(JSONText.shortString(String($0))) (\(encodedNonASCII($0)))" }.joined(separator: ", ")
    }

    /// Whether `target` holds a `%XX` of a byte past ASCII.
    private static func holdsEncodedNonASCII(_ target: String) -> Bool {
        PercentDecoding.bytes(target, decoding: { $0 >= 0x80 }, uppercasingKept: false, stray: .kept)?.count != target.utf8.count
    }

    /// `text`'s bytes with each `%XX` decoded unless it encodes a reserved character or `%`
    /// (RFC 3986 section 2.2: `:/?#[]@!$&'()*+,;=`), which is kept, its hex digits upper-cased
    /// (section 6.2.2.1): two texts with the same form are the same URL spelled two ways. Nil
    /// when the decoded bytes are not UTF-8 or a `%` is not followed by two hex digits.
    static func equivalentForm(_ text: String) -> [UInt8]? {
        let form = PercentDecoding.bytes(text, decoding: { $0 >= 0x80 || !reserved.contains($0) }, uppercasingKept: true, stray: .refused)
        return form.flatMap { String(validating: $0, as: UTF8.self) } == nil ? nil : form
    }

    /// RFC 3986's reserved characters (gen-delims and sub-delims) and `%` itself.
    private static let reserved = Set(":/?#[]@!$&'()*+,;=%".utf8)

    /// Whether `text` has a `%` or a byte past ASCII: else it is its own decoding, and two such
    /// texts that differ differ decoded too (the check of a 404's closest mock mostly stops here).
    /// Its bytes read in place (a native string's are contiguous), not through the generic
    /// `String.UTF8View` iterator.
    private static func mayDiffer(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains { $0 == UInt8(ascii: "%") || $0 >= 0x80 } }
    }
}
