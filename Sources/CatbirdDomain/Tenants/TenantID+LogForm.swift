import CatbirdSupport
import Foundation

extension TenantID {
    /// How log lines write the id (`tenant=…`, ``description``): `(default)` for the default
    /// tenant; an id of only ASCII letters, digits and `-._:/@+~` as it is (`tenant=shard-1`);
    /// any other in double quotes as a JSON string, so that one field is one token and two
    /// tenants never log alike (tester findings tester50a-F4, tester50c-F7: a shard named
    /// `(default)` logged as the default tenant, `a b` split in two, and ids with a BOM or a
    /// zero-width space logged exactly as the plain id). Inside the quotes `"` and `\` are
    /// escaped, and written `\uXXXX` (UTF-16, as JSON does) are the C0 controls and DEL, and the
    /// non-ASCII code points a reader may not see or tell apart: default-ignorable ones (U+FEFF,
    /// U+200B, the bidirectional controls), spaces and line or paragraph separators (U+00A0,
    /// U+2028), other format, private-use and unassigned ones, and every non-ASCII one of an id
    /// that canonical composition (NFC) would change (`"shard-\u212a"`). An id of more than 64
    /// UTF-8 bytes shows its first 64 and `…` inside the quotes, then its length:
    /// `"tttt…" (1000 bytes)` (docs/tenancy.md#ids-in-messages).
    public var logForm: String {
        guard !isDefault else { return "(default)" }
        let bytes = rawValue.utf8.count
        if bytes <= JSONText.shownBytes, rawValue.utf8.allSatisfy(Self.isBareLogByte) { return rawValue }
        let cut = bytes > JSONText.shownBytes
        let escapingAllNonASCII = !rawValue.precomposedStringWithCanonicalMapping.hasSameBytes(as: rawValue)
        // The project's one JSON escaper (`"`, `\`, C0 controls), then what it leaves as itself.
        var out = ""
        for scalar in JSONText.string(cut ? rawValue.utf8Prefix(JSONText.shownBytes) : rawValue).unicodeScalars {
            if scalar.mayNotShow || (escapingAllNonASCII && !scalar.isASCII) {
                scalar.appendJSONEscape(to: &out)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return cut ? out.dropLast() + "…\" (\(bytes) bytes)" : out
    }

    /// The bytes an id may be logged bare with: nothing that reads as a field's end, a quote
    /// or the default tenant's `(default)`.
    private static func isBareLogByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "/"),
             UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
