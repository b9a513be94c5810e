import CatbirdSupport
import CatbirdWire

/// A `wildcard` or `regexp` url holding characters past ASCII (`/menu/café*`): clients
/// (URLSession, OkHttp, browsers) send them percent-encoded as their UTF-8 bytes
/// (`/menu/caf%C3%A9`), and the url is matched against the request-target as sent, so the mock
/// answers only a client that sends them raw (tester findings tester58b-F3, tester60b-F4: a bare
/// 201, then 404s saying only "url differs"). The mock is kept as sent, as 0.11 keeps it; the
/// 201 says so (docs/protocol.md#mocks-that-can-never-match). An `equal` url is not warned of:
/// its 404 names the percent-encoded form (``PercentEncodingHint``).
enum NonASCIIURLWarning {
    /// The warning for `pattern`, or nil when its url is `equal` or all ASCII. `subject`: what
    /// it says the character is needed by, "this mock" (an `update`) or "this pattern" (a count,
    /// find or wait: tester finding tester61a-F2, they answered 0 without a word). Said of where
    /// the pattern needs such a character, since it may not always (tester finding tester61a-F7:
    /// `[^é]`, `é?`, an alternative or a comment match encoded targets too).
    static func warning(for pattern: RequestPattern, subject: String = "this mock") -> String? {
        let url = pattern.url
        guard url.kind != .equal, url.value.utf8.contains(where: { $0 >= 0x80 }) else { return nil }
        return "'pattern.url.value' \(JSONText.shortString(url.value)) holds \(PercentEncodingHint.nonASCIIExamples(url.value)), "
            + "which clients (URLSession, OkHttp, browsers) send percent-encoded as its UTF-8 bytes: a \(url.kind.rawValue) url is "
            + "matched against the request-target as sent, so where \(subject) needs such a character it matches only a request "
            + "that sends it raw; to match the encoded form, \(PercentEncodingHint.encodedAdvice(url))"
    }
}
