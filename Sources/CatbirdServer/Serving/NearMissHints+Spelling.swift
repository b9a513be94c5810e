import CatbirdDomain
import CatbirdSupport

/// The url hints for an `equal` url that is the request-target spelled another way, which
/// `equal` (comparing the target as sent, byte for byte: Catbird 0.11) does not take for it
/// (tester finding tester42a-F9):
/// - letter case: `/api/Users/Me` against an app's `/api/users/me` (a case difference inside a
///   percent-escape alone is ``PercentEncodingHint``'s);
/// - a space in the query written `+` where the other writes `%20` (`?q=red+shoes` against
///   `?q=red%20shoes`): both a space to a form decoder and to the journal's `url` filter, two
///   different targets to `equal`.
extension NearMissHints {
    /// The case hint when `mock`'s `equal` url differs from `target` only in the case of ASCII
    /// letters, one of them outside a percent-escape: `mock 4's url "/api/Users/Me" differs from
    /// the request's "/api/users/me" only in letter case: equal compares the request-target as
    /// sent, case-sensitively (a wildcard or regexp compares letters case-insensitively, past ASCII too)`.
    static func urlCase(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        guard url.kind == .equal, url.value != target, url.value.utf8.count == target.utf8.count,
              url.value.equalsIgnoringASCIICase(target), differsOutsideEscapes(url.value, target) else { return nil }
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) differs from the request's \(JSONText.shortString(target)) "
            + "only in letter case: equal compares the request-target as sent, case-sensitively (a wildcard or regexp compares "
            + "letters case-insensitively, past ASCII too)"
    }

    /// The query-space hint when `mock`'s `equal` url and `target` have the same path and
    /// queries that are the same once each `+` is read as `%20`: `mock 6's url
    /// "/search?q=red+shoes" writes a space in its query as "+" where the request writes "%20"
    /// ("/search?q=red%20shoes"): equal compares the request-target as sent, so write it as the app sends it`.
    static func querySpace(_ mock: Mock, target: String) -> String? {
        let url = mock.patternURL
        // A raw `#…` is no query (tester finding tester45a-F3: a `+` in it was called a space).
        guard url.kind == .equal, url.value != target, !target.contains("#"), !url.value.contains("#"),
              let query = target.firstIndex(of: "?"),
              let expectedQuery = url.value.firstIndex(of: "?"),
              url.value[..<expectedQuery].utf8.elementsEqual(target[..<query].utf8) else { return nil }
        let expected = url.value[expectedQuery...]
        let sent = target[query...]
        // Bytes, not `String` equality, which takes canonically equivalent texts for one (try7b F13).
        guard Self.spacesAsEscapes(expected).hasSameBytes(as: Self.spacesAsEscapes(sent)) else { return nil }
        let how = switch (expected.contains("+"), sent.contains("+")) {
        case (true, false): #"writes a space in its query as "+" where the request writes "%20""#
        case (false, true): #"writes a space in its query as "%20" where the request writes "+""#
        default: #"writes spaces in its query as "+" and "%20" in other places than the request"#
        }
        return "mock \(mock.id)'s url \(JSONText.shortString(url.value)) \(how) (\(JSONText.shortString(target))): both are a "
            + "space to a form decoder, but equal compares the request-target as sent, so write it as the app sends it"
    }

    /// `query` with each `+` written `%20`.
    private static func spacesAsEscapes(_ query: Substring) -> String {
        query.replacingOccurrences(of: "+", with: "%20")
    }

    /// Whether `a` and `b` (the same length, equal but for ASCII case) differ at a byte that is
    /// not one of a percent-escape's two hex digits.
    private static func differsOutsideEscapes(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        for index in a.indices where a[index] != b[index] {
            let inEscape = (index >= 1 && a[index - 1] == UInt8(ascii: "%"))
                || (index >= 2 && a[index - 2] == UInt8(ascii: "%"))
            if !inEscape { return true }
        }
        return false
    }
}
