import CatbirdSupport
import CatbirdWire

extension CompiledBodyPattern {
    /// The most body bytes ``normalizationDifference(_:)`` reads as text: 64 KiB.
    static let normalizationCheckLimit = 64 * 1024

    /// For a 404's reason, after "mock 7's ": where an `equal` or `contains` pattern fails
    /// `body` only because the two spell a character in different Unicode normalization forms
    /// (`café` typed in Swift source, NFC, against an NFD `cafe` + U+0301 from an iOS file name
    /// or keyboard): `body pattern contains "caf<U+00E9>" is in the body only as
    /// "cafe<U+0301>", the same text in another Unicode normalization form: body patterns
    /// compare bytes, so write it as the app sends it` (tester finding tester42a-F4: the near
    /// miss read `expected contains "café", got "café"`). Each non-ASCII code point of the two
    /// is written `<U+XXXX>`, so the difference shows. Nil for other kinds, a pattern of ASCII
    /// alone, a body over ``normalizationCheckLimit`` bytes or not UTF-8, and a body the
    /// pattern fails as text too (compared by canonical equivalence, as Swift compares strings).
    public func normalizationDifference(_ body: [UInt8]) -> String? {
        let kind = source.kind
        guard kind == .equal || kind == .contains, body.count <= Self.normalizationCheckLimit,
              source.value.utf8.contains(where: { $0 >= 0x80 }), !matches(body),
              let text = String(validating: body, as: UTF8.self) else { return nil }
        let spelled: Substring
        if kind == .equal {
            guard text == source.value else { return nil }
            spelled = text[...]
        } else {
            guard let range = text.firstRange(of: source.value) else { return nil }
            spelled = text[range]
        }
        let verb = kind == .equal ? "is the body" : "is in the body"
        return "body pattern \(kind.rawValue) \(JSONText.shortString(Self.codePoints(source.value[...]))) \(verb) only as "
            + "\(JSONText.shortString(Self.codePoints(spelled))), the same text in another Unicode normalization form: "
            + "body patterns compare bytes, so write it as the app sends it"
    }

    /// `text` with each code point past ASCII written `<U+XXXX>` (``Unicode/Scalar/codePointText``).
    private static func codePoints(_ text: Substring) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII { out.unicodeScalars.append(scalar) } else { out += "<\(scalar.codePointText)>" }
        }
        return out
    }
}
