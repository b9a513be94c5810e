import CatbirdSupport
import CatbirdWire
import Foundation

/// A mock's `response.body` that is valid base64 by chance: a word such as `done`, `true`,
/// `test` or `user` sent as the text it means decodes to bytes that are not text, and is
/// served as those bytes (tester findings try9a F13, try10a F17: `"body":"done"` with
/// `Content-Type: text/plain` answered 3 bytes of binary). Catbird 0.11 reads `body` as
/// base64, so the mock is kept as sent; the 201 says what was meant, as for mocks that can
/// never match (docs/protocol.md#mocks-that-can-never-match).
enum TextBodyAsBase64Warning {
    /// The warning for `response`, or nil: only when its body's bytes are not UTF-8, its
    /// `Content-Type` declares no other charset, and it names text (`text/*`, JSON, XML, `+json`, `+xml`, form data), or it has no
    /// `Content-Type` and the base64 is a short word (letters only, at most ``wordLength``: tester
    /// finding T19B-F9, `"body":"done"` alone, the usual first try, got a bare 201).
    static func warning(for response: ResponseMock) -> String? {
        guard let body = response.body, !body.isEmpty, String(data: body, encoding: .utf8) == nil,
              // A compressed text body is binary by design (review: the advice would break it).
              !response.headers.keys.contains(where: { $0.lowercased() == "content-encoding" })
        else { return nil }
        let type = response.headers.first { $0.key.lowercased() == "content-type" }?.value.lowercased() ?? ""
        // A charset other than UTF-8 declared: the bytes are text in it (ISO-8859-1's `café` is
        // not UTF-8), as the journal and the page read them (tester finding tester48b-F7: the
        // advice, if followed, would have served the base64 itself).
        if let charset = BodyText.charset(of: type), !["utf-8", "utf8", "us-ascii"].contains(charset.lowercased()) { return nil }
        let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let textual = mediaType.hasPrefix("text/") || mediaType.hasSuffix("/json") || mediaType.hasSuffix("+json")
            || mediaType.hasSuffix("/xml") || mediaType.hasSuffix("+xml") || mediaType == "application/x-www-form-urlencoded"
        let sent = body.base64EncodedString()
        let word = type.isEmpty && sent.utf8.count <= Self.wordLength
            && sent.utf8.allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
        guard textual || word else { return nil }
        let meant = Data(sent.utf8).base64EncodedString()
        let why = textual ? "though the Content-Type is \(JSONText.shortString(mediaType))" : "and the response has no Content-Type"
        return "'response.body' \(JSONText.shortString(sent)) is base64 (as in Catbird 0.11) for \(body.count) bytes that are "
            + "not UTF-8 text, \(why): they are served as those bytes; "
            + "for the text \(JSONText.shortString(sent)) send \(JSONText.shortString(meant))"
    }

    /// The longest base64 body without a `Content-Type` taken for a word meant as text: 12
    /// characters (9 bytes). A real binary body that short whose base64 is letters only is rare.
    static let wordLength = 12
}
