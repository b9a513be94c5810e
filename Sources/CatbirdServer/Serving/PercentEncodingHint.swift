import CatbirdDomain
import CatbirdSupport
import Foundation

/// The 404 reason's hint when the closest mock's `equal` url differs from the request-target
/// only in percent-encoding (docs/matching.md#near-misses): `equal` compares the target as sent,
/// byte for byte, so `/api/bé` in a mock never matches what a client sends for it
/// (`/api/b%C3%A9` from URLSession, `/api/b%c3%a9` from curl; tester finding try6a F10).
enum PercentEncodingHint {
    /// `its url differs only in percent-encoding (both are "/api/bé" decoded): equal compares the
    /// request-target as sent, so write the mock's url as the app sends it, "/api/b%C3%A9" (a
    /// regexp url also ignores the case of %XX)`; nil when `mock`'s url is not `equal`, is the
    /// target itself, or decodes to another text than the target (RFC 3986 section 2.1).
    static func hint(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL  // in place: no copy of the compiled pattern
        guard url.kind == .equal, url.value != target, mayDiffer(url.value) || mayDiffer(target),
              let decoded = url.value.removingPercentEncoding, decoded == target.removingPercentEncoding else { return nil }
        return "its url differs only in percent-encoding (both are \(JSONText.shortString(decoded)) decoded): equal compares the "
            + "request-target as sent, so write the mock's url as the app sends it, \(JSONText.shortString(target)) "
            + "(a regexp url also ignores the case of %XX)"
    }

    /// Whether `text` has a `%` or a byte past ASCII: else it is its own decoding, and two such
    /// texts that differ differ decoded too (the check of a 404's closest mock mostly stops here).
    /// Its bytes read in place (a native string's are contiguous), not through the generic
    /// `String.UTF8View` iterator.
    private static func mayDiffer(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains { $0 == UInt8(ascii: "%") || $0 >= 0x80 } }
    }
}
