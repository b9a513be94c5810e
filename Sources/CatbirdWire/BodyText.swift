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
package enum BodyText {
    /// The text of `body` by the charset `contentType` declares; nil when there is no text
    /// to show (see the type's rules). An empty body is `""`.
    package static func text(of body: some Collection<UInt8>, contentType: String?) -> String? {
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
    /// lowercased; nil when there is none. Parameters as RFC 9110 §5.6.6 writes them: a quoted
    /// value is read with its `\` escapes, and a `;` inside quotes is part of the value, not a
    /// separator, so `foo="a;charset=latin1"` declares no charset (tester finding tester29a-F1).
    /// A parameter without `=` is skipped. An unterminated quoted value runs to the field's
    /// end; a charset written so is returned with its opening quote (`"latin1`), which names no
    /// charset. The web page reads a `Content-Type` by the same rules (page.js, `charsetOf`).
    package static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        let bytes = Array(contentType.utf8)
        let semicolon = UInt8(ascii: ";"), quote = UInt8(ascii: "\"")
        func isOWS(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func text(_ part: ArraySlice<UInt8>) -> String {
            String(decoding: part.drop(while: isOWS).reversed().drop(while: isOWS).reversed(), as: UTF8.self)
        }
        guard var i = bytes.firstIndex(of: semicolon) else { return nil }
        while i < bytes.count {
            i += 1  // past the `;`
            let nameStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "="), bytes[i] != semicolon { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }  // no value: skipped
            let isCharset = text(bytes[nameStart..<i]).equalsIgnoringASCIICase("charset")
            i += 1
            while i < bytes.count, isOWS(bytes[i]) { i += 1 }
            var value: [UInt8] = []
            if i < bytes.count, bytes[i] == quote {
                i += 1
                var closed = false
                while i < bytes.count {
                    let byte = bytes[i]
                    i += 1
                    if byte == UInt8(ascii: "\\"), i < bytes.count {
                        value.append(bytes[i])
                        i += 1
                    } else if byte == quote {
                        closed = true
                        break
                    } else {
                        value.append(byte)
                    }
                }
                guard closed else { return isCharset ? "\"" + String(decoding: value, as: UTF8.self).asciiLowercased() : nil }
                while i < bytes.count, bytes[i] != semicolon { i += 1 }
            } else {
                let start = i
                while i < bytes.count, bytes[i] != semicolon { i += 1 }
                value = Array(text(bytes[start..<i]).utf8)
            }
            if isCharset { return String(decoding: value, as: UTF8.self).asciiLowercased() }
        }
        return nil
    }
}
