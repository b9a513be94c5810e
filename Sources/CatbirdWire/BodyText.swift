import CatbirdSupport

/// How a stored body is shown as text: the journal's `body` field, a HAR file's `text`, the
/// client's `bodyText`. Rules: docs/matching.md#body-text-and-charsets.
///
/// Read by the charset its `Content-Type` declares (RFC 9110 §8.3.2; names and aliases from
/// the IANA character set registry, compared ASCII case-insensitively, quotes removed):
/// - none, `utf-8` or `us-ascii`: the bytes when they are valid UTF-8, else no text;
/// - `iso-8859-1` and its aliases (`latin1`, `l1`, `iso_8859-1`, `iso-ir-100`, `cp819`,
///   `ibm819`, `csisolatin1`): each byte is the character of that number (U+0000…U+00FF, as
///   ISO-8859-1 defines them: 0x80…0x9F are C1 controls, not windows-1252's letters);
/// - any other charset: no text (the bytes are given in base64 only), since reading them as
///   UTF-8 could show other characters than the client sent.
///
/// Matching does not read the charset: the body matchers compare bytes (docs/matching.md#body-matchers).
public enum BodyText {
    /// The text of `body` by the charset `contentType` declares; nil when there is no text
    /// to show (see the type's rules). An empty body is `""`.
    public static func text(of body: some Collection<UInt8>, contentType: String?) -> String? {
        switch charset(of: contentType) {
        case nil, "utf-8", "utf8", "us-ascii", "ascii":
            return String(validating: body, as: UTF8.self)
        case let name? where latin1Names.contains(name):
            return String(String.UnicodeScalarView(body.map { Unicode.Scalar($0) }))
        default:
            return nil
        }
    }

    /// ISO-8859-1's name and aliases in the IANA registry, lowercased.
    static let latin1Names: Set<String> = [
        "iso-8859-1", "iso_8859-1", "iso_8859-1:1987", "iso-ir-100", "latin1", "l1", "ibm819", "cp819", "csisolatin1",
    ]

    /// The `charset` parameter of a media type (`text/plain; charset="Latin1"` → `latin1`),
    /// lowercased and unquoted; nil when there is none.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0].trimmingOptionalWhitespace()).equalsIgnoringASCIICase("charset") else { continue }
            var value = pair[1].trimmingOptionalWhitespace()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
            return String(value).asciiLowercased()
        }
        return nil
    }
}
